#pragma once

#include "verifier/harness/verifieroptions.h"

#include <QMap>
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
    // Bytecode Kiln compiled for the interpreter's packages (TorchBytecode), read by sandboxes;
    // empty where the packages have their own.
    QString bytecodeCache;
    QString bytecodeNote;
    bool bytecodeFailed = false; // needed (no bytecode beside torch) but not made
    // Each kernel language's Python package (KernelLanguage::pythonModule) by language id: its
    // version, or empty when python3 cannot find it. Inline CUDA needs none.
    QMap<QString, QString> languageVersions;

    static TorchEnvironment probe(const VerifierOptions &options);
    QString describe() const; // one line for doctor and reports
    // Why candidates of a language cannot run here ("" when they can): torch itself, or the
    // language's package missing, with what to install.
    QString languageProblem(const QString &languageId) const;
};

} // namespace kiln
