#pragma once

#include "cudadevices.h"
#include "sandboxprocess.h"
#include "verifieroptions.h"

#include <QTemporaryDir>
#include <memory>

namespace kiln {

// One GPU's persistent kiln-cuda-sandbox. It stays up between candidates (a CUDA context takes
// long to create) and is restarted after a fault, a timeout, a poisoned context, or every
// cudaEvaluationsPerSandbox evaluations. Used by one evaluation at a time (CudaSandboxPool).
class CudaSandboxSlot
{
public:
    CudaSandboxSlot(const VerifierOptions &options, CudaDevice device);
    ~CudaSandboxSlot();

    // Starts the process when it is not running; false (with the reason) when it cannot.
    bool ensureStarted(QString *error);
    // Drops the process: the next ensureStarted() starts a fresh one with a fresh context.
    void restart();
    void countEvaluation() { ++m_evaluations; }

    // How a kiln-cuda-sandbox is started: no address-space limit (the driver maps huge ranges),
    // the given arguments, --profiling where the options ask for it.
    static SandboxSettings settings(const VerifierOptions &options, const QStringList &arguments);

    SandboxProcess &process() { return *m_process; }
    const CudaDevice &device() const { return m_device; }
    int restarts() const { return m_restarts; }

    // Achievable device bandwidth (device-to-device copy, bytes read + written per second),
    // measured once per slot: the hardware does not change between sandboxes.
    double bandwidth(int timeoutMs);

    // What the running process has loaded in its reference ('r') and library ('b') slots, so
    // a run's evaluations load them once.
    QString loadedReference;
    QString loadedLibrary;

private:
    const VerifierOptions &m_options;
    CudaDevice m_device;
    std::unique_ptr<SandboxProcess> m_process;
    std::unique_ptr<QTemporaryDir> m_work;
    bool m_userNamespace = true;
    int m_evaluations = 0;
    int m_restarts = 0;
    double m_bandwidth = 0.0;
};

} // namespace kiln
