#pragma once

#include "verifier/harness/verifieroptions.h"

#include <QString>

namespace kiln {

// Python's compiled bytecode for the interpreter's packages, where they came without it (an
// image installed with --no-compile). Every sandboxed process runs python3 -B, which writes no
// bytecode, so without any each one compiled torch's modules again: on the GPU machine 2.7 s of
// the 3.9 s that torch 2's first dispatch mode costs, and most of `import torch`. Kiln compiles
// the packages once, outside any sandbox, into a folder of its cache that sandboxes read through
// PYTHONPYCACHEPREFIX and cannot write (kiln-torch-sandbox sets it only where Landlock is there
// to keep candidates' writes out of it). Python checks each file against its source, so a
// package upgraded later is compiled in memory again, never run stale.
class TorchBytecode
{
public:
    struct Outcome
    {
        QString folder;      // the prefix sandboxes read; empty: none (not needed, or not made)
        QString note;        // what was done or why not, for the doctor
        bool failed = false; // needed, but could not be made
    };

    // sitePackages: the folder that holds torch; bytecodeBeside: whether torch's own modules
    // have their bytecode next to them (then nothing is done).
    static Outcome prepare(const VerifierOptions &options, const QString &python,
                           const QString &torchVersion, const QString &sitePackages,
                           bool bytecodeBeside);
};

} // namespace kiln
