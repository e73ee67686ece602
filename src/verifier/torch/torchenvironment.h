#pragma once

#include "verifier/harness/verifieroptions.h"

#include <QString>

namespace kiln {

// Whether the PyTorch backend can run here: the user's python3, its torch, a GPU torch can see,
// and the sandbox and worker that ship with Kiln. Asked once per verifier (python3 -c, outside
// any sandbox: only Kiln's own probe code runs).
struct TorchEnvironment
{
    bool usable = false;
    QString reason; // why not, with what to do
    QString python;
    QString pythonPath; // the interpreter's sys.path, so a user-site torch is found in the sandbox
    QString torchVersion;
    QString cudaVersion;
    QString architecture; // "9.0"
    QString deviceName;
    QString worker; // kiln_torch_worker.py

    static TorchEnvironment probe(const VerifierOptions &options);
    QString describe() const; // one line for doctor and reports
};

} // namespace kiln
