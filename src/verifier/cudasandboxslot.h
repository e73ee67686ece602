#pragma once

#include "cudadevices.h"
#include "sandboxprocess.h"
#include "verifieroptions.h"

#include <QTemporaryDir>
#include <memory>

namespace kiln {

// One GPU's persistent kiln-cuda-sandboxes: the candidates' process, and the baseline's, which
// only ever loads the task's reference and library baseline. Both stay up between candidates (a
// CUDA context takes long to create). The candidates' process is restarted after a fault, a
// timeout, a poisoned context, or every cudaEvaluationsPerSandbox evaluations; the baseline's
// when it fails. Used by one evaluation at a time (CudaSandboxPool).
class CudaSandboxSlot
{
public:
    CudaSandboxSlot(const VerifierOptions &options, CudaDevice device);
    ~CudaSandboxSlot();

    // Starts the candidates' process when it is not running; false (with the reason) when it
    // cannot.
    bool ensureStarted(QString *error);
    // Drops the candidates' process: the next ensureStarted() starts a fresh one with a fresh
    // context.
    void restart();
    // The same for the baseline's process: a context of its own, so nothing the reference
    // leaves on the device (freed scratch, pool blocks, its answers) is in the candidate's reach.
    bool ensureBaselineStarted(QString *error);
    void restartBaseline();
    void countEvaluation() { ++m_evaluations; }

    // How a kiln-cuda-sandbox is started: no address-space limit (the driver maps huge ranges),
    // the given arguments, --profiling where the options ask for it.
    static SandboxSettings settings(const VerifierOptions &options, const QStringList &arguments);

    SandboxProcess &process() { return *m_candidates.process; }
    SandboxProcess &baselineProcess() { return *m_baselines.process; }
    const CudaDevice &device() const { return m_device; }
    int restarts() const { return m_restarts; }

    // Achievable device bandwidth (device-to-device copy, bytes read + written per second),
    // measured once per slot: the hardware does not change between sandboxes.
    double bandwidth(int timeoutMs);

    // What the baseline's process has loaded in its reference ('r') and library ('b') slots,
    // so a run's evaluations load them once.
    QString loadedReference;
    QString loadedLibrary;

private:
    struct Process
    {
        std::unique_ptr<SandboxProcess> process;
        std::unique_ptr<QTemporaryDir> work;
    };
    bool start(Process &into, QString *error);
    void stop(Process &process);

    const VerifierOptions &m_options;
    CudaDevice m_device;
    Process m_candidates;
    Process m_baselines;
    bool m_userNamespace = true;
    int m_evaluations = 0;
    int m_restarts = 0;
    double m_bandwidth = 0.0;
};

} // namespace kiln
