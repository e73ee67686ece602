#pragma once

#include "languages/kernellanguage.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/torch/torchenvironment.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <atomic>
#include <memory>

namespace kiln {

// One kiln-torch-sandbox process (python3 on kiln_torch_worker.py) in one role: the problem's
// reference, a candidate, or the build of a candidate's extension. A thin layer over
// SandboxProcess: the worker's command line, and requests whose reply asks for a larger shared
// buffer ("err need <bytes>") are retried after growing it.
class TorchProcess
{
public:
    enum class Role
    {
        Reference,
        Candidate,
        Build
    };

    // extensionDir: TORCH_EXTENSIONS_DIR at the start (writable in the sandbox); Kiln gives a
    // candidate's and a build's folder with openDevice() instead, and the reference has none.
    // workDir empty: a private temporary folder.
    // buildSlots: builds that may run at once, which share the cores among their compilers.
    // language: a candidate's kernel language (its compiler's environment, and whether the
    // process waits for a "warm" call before it loses exec); none for the reference.
    TorchProcess(const VerifierOptions &options, const TorchEnvironment &environment, Role role,
                 QString extensionDir, int buildSlots = 1,
                 const KernelLanguage *language = nullptr);

    bool start(const QString &workDir, qint64 bufferBytes, QString *error,
               const std::atomic<bool> *cancel = nullptr);
    SandboxProcess::Reply request(const QByteArray &line, int timeoutMs,
                                  const std::atomic<bool> *cancel = nullptr);
    // The JSON document that ends a reply's words (empty when there is none).
    static QJsonDocument json(const SandboxProcess::Reply &reply);
    bool ensureBuffer(qint64 bytes);
    // Writes a module into the process's work folder; its path, or empty when it cannot.
    QString writeModule(const QString &name, const QString &source) const;

    // A candidate's process: its extension folder (TORCH_EXTENSIONS_DIR, writable; empty for
    // none), its device opened (CUDA's context on a GPU), then its writes confined. Call under
    // a shared hold of the device, never inside a timed window.
    bool openDevice(const QString &extensionDir, const std::atomic<bool> *cancel, QString *error);
    // The sandbox's isolation, as the process described it last.
    QString isolation() const;
    // Where the start's time went, as the worker measured it (ms: python, torch, op_recorder,
    // inline_build, cpu, total).
    QJsonObject startPhases() const;
    // What the process is started as (its program, arguments and work root): two processes of
    // one recipe are interchangeable before either has loaded a module.
    QString recipe() const;

    SandboxProcess &process() { return *m_process; }
    char *buffer() const { return m_process->buffer(); }
    qint64 bufferSize() const { return m_process->bufferSize(); }

private:
    VerifierOptions m_options; // a copy: a process started ahead outlives its caller's options
    Role m_role;
    std::unique_ptr<QTemporaryDir> m_work;
    std::unique_ptr<SandboxProcess> m_process;
    QString m_isolation; // after openDevice()
};

} // namespace kiln
