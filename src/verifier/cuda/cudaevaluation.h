#pragma once

#include "core/evaluationresult.h"
#include "tasks/launchgeometry.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/cuda/cudasandboxpool.h"
#include "verifier/cuda/cudatimingsession.h"
#include "verifier/cuda/launcheradmission.h"
#include "verifier/harness/backendevaluation.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/devicelock.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/gpuactivity.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/verifieroptions.h"

#include <atomic>
#include <memory>
#include <optional>

namespace kiln {

// One candidate's trip through the CUDA pipeline (verifier.md): screen and compile (nvcc, or
// NVRTC for device-only candidates), correctness on the GPU against the CPU reference's
// expected outputs, event timing with L2 flushes interleaved with the task's reference kernel
// (and cuBLAS where the task names a library baseline), side-stream and roofline checks. A
// candidate with host code runs in a single-use kiln-cuda-sandbox, a device-only one in its GPU's
// trusted launcher where LauncherAdmission allows; verdicts are drawn here.
class CudaEvaluation : private BackendEvaluation
{
public:
    CudaEvaluation(const VerifierOptions &options, CompileCache &cache, ReferenceBank &references,
                   CudaSandboxPool &pool, const Task &task, const QString &source,
                   quint64 runSecret, const std::atomic<bool> &cancel);
    EvaluationResult run();

private:
    // What a timing loop's calls showed beyond the harness stream's events (medians).
    struct SideStreams
    {
        double tailMs = 0.0; // the device busy after the stop event: this context's work only
        double gapMs = 0.0;  // the wall clock beyond the events: any context on the GPU adds
        bool tail = false;   // beyond its threshold
        bool gap = false;
    };
    // The timing loop, run again (at most kDisturbedRetries times) while its gap alone would
    // flag and NVML saw another process busy on the GPU, and once after an engine-clock gap as
    // large as a fake's that no other process explains.
    struct Timed
    {
        TimingLoop::Outcome outcome; // the last run's
        SideStreams sideStreams;     // the last run's
        int tries = 0;
        QList<GpuActivity::Busy> others; // every other process seen busy, in any run
        QString activityError;           // why NVML could not tell, where it was asked
        bool disturbed = false;          // the last run's gap was another process's doing
    };
    // The session's calls numbered from `first`, so a repeated loop draws inputs no earlier
    // call saw (and the previous call's answer is still the one before it).
    static constexpr int kDisturbedRetries = 2;

    bool compileCandidate(); // both paths, before the GPU is taken
    bool compileBaselines();
    // The GPU's machine-wide lock in `mode`, any hold of ours let go first (a shared hold would
    // keep our own exclusive wait from ever ending). False, with the failure, when cancelled.
    bool lockGpu(DeviceLock::Mode mode);
    bool loadIntoSandbox();
    // The process the candidate's code runs in: the launcher or its single-use sandbox.
    SandboxProcess &candidateProcess();
    bool startCandidateProcess(QString *error);
    // After a launcher evaluation: the module unloaded and the device scrubbed, or the launcher
    // replaced (a kernel still running or a fault at the scrub is this candidate's verdict).
    void scrubLauncher();
    void annotateStage(const QString &stage, const QJsonObject &data);
    // Per (run secret, source): the timed inputs of this evaluation (CudaTimingSession).
    quint64 timedInputSalt() const;
    bool checkCorrectness();
    void measureTiming();
    Timed timeUntilUndisturbed(CudaTimingSession &session, const AdaptiveTiming::Rules &rules);
    SideStreams sideStreams(const CudaTimingSession &session, qsizetype from,
                            double candidateMs) const;
    bool othersWereBusy(quint64 sinceMicroseconds, Timed &timed) const;
    QSet<qint64> ownPids() const;
    void recordTimingFailure(const CudaTimingSession &session, bool cancelled);
    void reportTiming(const CudaTimingSession &session, const Timed &timed,
                      const ShapeConfig &shape, double stageMs, double setupMs, double quietWaitMs);
    void judgeSideStreams(const Timed &timed, QJsonObject &data);
    EvaluationResult finish();

    // Sends a request; on anything but "ok" records the failure (crash, timeout, CUDA error)
    // and returns false.
    bool send(const QByteArray &line, int timeoutMs, const QString &during,
              SandboxProcess::Reply *reply = nullptr);
    // The same for the baseline's process (the reference and the library baseline).
    bool sendToBaseline(const QByteArray &line, int timeoutMs, const QString &during,
                        SandboxProcess::Reply *reply = nullptr);
    bool deliver(bool baseline, const QByteArray &line, int timeoutMs, const QString &during,
                 SandboxProcess::Reply *reply);
    Failure describeFailure(const SandboxProcess &box, const SandboxProcess::Reply &reply,
                            int timeoutMs, const QString &during, bool baseline,
                            bool *restart) const;
    bool loadBaselines();
    void screen(const CompiledArtifact &artifact, bool symbolsAvailable);
    QByteArray argumentRequests(int id, const PlacedBuffers &placed, const ShapeConfig &shape,
                                bool candidateSlot, QString *error) const;

    const VerifierOptions &m_options;
    CompileCache &m_cache;
    ReferenceBank &m_references;
    CudaSandboxPool &m_pool;
    const Task &m_task;
    QString m_source;
    quint64 m_secret;
    const std::atomic<bool> &m_cancel;

    CudaSandboxSlot *m_slot = nullptr;
    QString m_architecture;
    std::optional<LaunchGeometry> m_geometry; // set: device-only candidate (NVRTC)
    LauncherAdmission m_admission;            // of a device-only candidate
    CudaCompiler::Outcome m_candidateBuild;
    QString m_referenceObject;
    QString m_libraryObject;
    std::shared_ptr<const RunReference> m_reference;
    bool m_compiled = false;
    bool m_objectBuilt = false;
    bool m_correct = false;
    bool m_restartSandbox = false;
    bool m_candidateLoaded = false;
    bool m_restartBaseline = false;
    QString m_isolation;
    // The GPU's DeviceLock: shared from loading the candidate to the timing set-up, exclusive
    // from the timer calibration to the last timed call.
    std::unique_ptr<DeviceLock> m_gpuLock;
    double m_lockWaitMs = 0.0; // waiting for the exclusive hold
};

} // namespace kiln
