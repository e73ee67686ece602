#pragma once

#include "verifier/harness/cudadevices.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QTemporaryDir>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace kiln {

// One GPU's kiln-cuda-sandboxes. Candidates with host code get single-use processes: each
// evaluation takes a fresh one from a few spares started ahead in the background with their CUDA
// context already up, and the process ends with the evaluation once candidate code was loaded
// into it, so nothing a candidate leaves behind (threads, device memory, limits, L2 or stream
// state, patched harness code) reaches the next one. Device-only candidates (an NVRTC cubin, no
// host code) go to the trusted launcher instead, which persists: it loads the cubin, and after
// the evaluation unloads it and scrubs what device code can reach (sandbox/cudamain.cpp,
// "scrub"); it is replaced when a kernel faults, hangs or the scrub fails. The GPU checker (the
// baseline's process) only ever loads the task's reference and library baseline and persists; it
// is restarted when it fails. Used by one evaluation at a time (CudaSandboxPool).
class CudaSandboxSlot
{
public:
    CudaSandboxSlot(const VerifierOptions &options, CudaDevice device);
    ~CudaSandboxSlot();

    // A fresh candidates' process for this evaluation (a spare when one is ready); false (with
    // the reason) when none can be started.
    bool ensureStarted(QString *error);
    // Ends the candidates' process (a spare takes its place), after candidate code ran in it or
    // after a fault.
    void restart();
    // The GPU checker: a context of its own, so nothing the reference leaves on the device
    // (freed scratch, pool blocks, its answers) is in the candidate's reach.
    bool ensureBaselineStarted(QString *error);
    void restartBaseline();
    // The trusted launcher for device-only candidates; replaced once it has used its CPU
    // allowance or judged options.cudaEvaluationsPerLauncher candidates.
    bool ensureLauncherStarted(QString *error);
    void restartLauncher();
    // Candidates judged by the running launcher (counted when one is scrubbed away).
    int launcherEvaluations() const { return m_launcherEvaluations; }
    void countLauncherEvaluation() { ++m_launcherEvaluations; }

    // What a kiln-cuda-sandbox is started as: a single-use candidates' process, the launcher or
    // the checker.
    enum class Role
    {
        Candidates,
        Launcher,
        Checker
    };
    // How a kiln-cuda-sandbox is started: no address-space limit (the driver maps huge ranges),
    // the given arguments, --profiling where the options ask for it. The CPU limit covers one
    // evaluation for a single-use process, many for the launcher and the checker.
    static SandboxSettings settings(const VerifierOptions &options, const QStringList &arguments,
                                    Role role = Role::Candidates);

    SandboxProcess &process() { return *m_candidates.process; }
    SandboxProcess &launcherProcess() { return *m_launcher.process; }
    SandboxProcess &baselineProcess() { return *m_baselines.process; }
    bool baselineRunning() const { return m_baselines.process != nullptr; }
    bool launcherRunning() const { return m_launcher.process != nullptr; }
    const CudaDevice &device() const { return m_device; }
    // Held by an evaluation (CudaSandboxPool's lease). While it is, a spare is started only
    // when none is left: a context coming up would make that evaluation's timing wait.
    void setLeased(bool leased);

    // While an evaluation times on this GPU no spare is started (a context coming up keeps the
    // device busy for a few hundred milliseconds: timings and the side-stream check would see
    // it); beginQuiet waits for a start already under way and says how long it waited (ms).
    double beginQuiet();
    void endQuiet();
    // beginQuiet for as long as it lives.
    class Quiet
    {
    public:
        explicit Quiet(CudaSandboxSlot &slot) : m_slot(slot), m_waitedMs(slot.beginQuiet()) {}
        ~Quiet() { m_slot.endQuiet(); }
        Quiet(const Quiet &) = delete;
        Quiet &operator=(const Quiet &) = delete;
        double waitedMs() const { return m_waitedMs; }

    private:
        CudaSandboxSlot &m_slot;
        double m_waitedMs;
    };

    // Achievable device bandwidth (device-to-device copy, bytes read + written per second),
    // measured once per slot: the hardware does not change between sandboxes.
    double bandwidth(int timeoutMs);

    // What the checker has loaded in its reference ('r') and library ('b') slots, so a run's
    // evaluations load them once.
    QString loadedReference;
    QString loadedLibrary;

private:
    struct Process
    {
        std::unique_ptr<SandboxProcess> process;
        std::unique_ptr<QTemporaryDir> work;
    };
    bool start(Process &into, Role role, QString *error);
    static bool withinAllowance(SandboxProcess &process, const VerifierOptions &options);
    void stop(Process &process);           // asked to quit first (a profiler writes its results)
    static void discard(Process &process); // killed at once
    void keepSparesReady();
    bool takeSpare();

    const VerifierOptions &m_options;
    CudaDevice m_device;
    Process m_candidates;
    Process m_baselines;
    Process m_launcher;
    int m_launcherEvaluations = 0;
    std::atomic<bool> m_userNamespace{true};
    std::atomic<bool> m_closing{false}; // set by the destructor: lock waits end
    double m_bandwidth = 0.0;

    // Spares, started by m_starter while fewer than the options ask for are ready.
    std::mutex m_spareMutex;
    std::condition_variable m_spareWanted;
    std::deque<Process> m_spares;
    bool m_stopping = false;
    bool m_starting = false; // a spare is coming up
    bool m_quiet = false;    // an evaluation is timing
    bool m_leased = false;   // an evaluation holds the slot
    std::thread m_starter;
};

} // namespace kiln
