#pragma once

#include "core/evaluationresult.h"
#include "languages/kernellanguage.h"
#include "tasks/task.h"
#include "verifier/harness/adaptivetiming.h"
#include "verifier/harness/backendevaluation.h"
#include "verifier/harness/devicelock.h"
#include "verifier/harness/engineclockbound.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/torch/torchbackend.h"
#include "verifier/torch/torchprocess.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <atomic>
#include <memory>
#include <optional>

namespace kiln {

// One ModelNew's trip through the PyTorch pipeline (docs/kernelbench.md): the Python and
// inline-CUDA screen, the extension built once per source (outside the GPU lock, so builds
// overlap other candidates' timing), then on the GPU: the candidate before any reference
// output exists in its process, outputs compared here against the reference process's over
// several secret seeds, inputs compared after the call, a second call with new values at the
// same addresses, and timing on fresh inputs interleaved with eager PyTorch and torch.compile.
class TorchEvaluation : private BackendEvaluation
{
public:
    TorchEvaluation(const VerifierOptions &options, TorchBackend &backend, const Task &task,
                    const QString &source, quint64 runSecret, const std::atomic<bool> &cancel);
    EvaluationResult run();

private:
    // What one correctness call showed.
    struct Comparison
    {
        qint64 mismatches = 0;
        qint64 unwritten = 0;
        qint64 notFinite = 0; // mismatches that are NaN or infinite where the reference is not
        qint64 first = -1;
        double maxAbs = 0.0;
        double maxRel = 0.0;
        QString problem; // a shape / count / dtype difference, or an input changed
        bool inputsChanged = false;
        bool ok() const { return mismatches == 0 && problem.isEmpty(); }
    };

    bool screen();
    // The folder of an inline-CUDA candidate's extensions, named by its source (made, and kept
    // in m_extensionDir); empty for a JIT language, which builds nothing apart.
    QString chooseExtensionFolder();
    bool build(const QString &key);
    std::unique_ptr<TorchProcess> startBuilder(QString *error);
    QString cpuLock() const;
    // How the build reply's extensions were built, for the compile stage's message.
    static QString buildWays(const QJsonArray &builds);
    static QByteArray inlineBuildDigest(const QString &worker);
    // A JIT language's first call, untimed, before the candidate's process loses exec: its
    // kernels compile and autotune; reported as the compile stage.
    bool warmUp(const QJsonObject &spec);
    // The device's machine-wide lock: "cpu" on torch's CPU device, else CUDA device 0's (torch's
    // device 0 is the probe's: both follow CUDA_VISIBLE_DEVICES), "gpu-0" where none answers.
    void chooseDevice();
    // The lock in `mode`, any hold of ours let go first; false (with the failure) when cancelled.
    bool lockDevice(DeviceLock::Mode mode);
    // An evaluation that could not fit in the GPU's memory beside another like it (or whose
    // problem has not been measured yet) holds the device alone from its first call on, so
    // evaluations of large problems wait for each other, across Kiln processes too.
    bool planMemory(const TorchReference &reference);
    // The exclusive hold, and what tells our processes from others' on the GPU.
    bool beginTimedWindow(TorchReference &reference);
    bool startCandidateProcess(QString *error);
    bool loadCandidate(TorchReference &reference);
    bool checkCorrectness(TorchReference &reference);
    std::optional<Comparison> callOnSeed(TorchReference &reference, quint64 seed,
                                         bool sameAddresses, QJsonObject *layout,
                                         bool spread = false);
    Comparison compare(const QJsonArray &expected, const char *expectedBase,
                       const QJsonArray &got) const;
    void measureTiming(TorchReference &reference);
    // How a correct candidate computes (TorchAudit): precision, kernel shares, the replay.
    void audit(TorchReference &reference);
    bool timeRound(TorchReference &reference, int count, quint64 seed);
    bool timeRounds(TorchReference &reference, int batchLimit, int *rounds,
                    AdaptiveTiming::Stop *stop);
    QString clockGap() const;
    void restartTimingRecord();
    void judgeTiming(QJsonObject &data);
    void judgeGap(const QString &evidence, QJsonObject &data);
    EvaluationResult finish();

    bool request(TorchProcess &process, const QByteArray &line, int timeoutMs,
                 const QString &during, SandboxProcess::Reply *reply);
    // A request to the problem's own reference process (its forward, eager timing): when it
    // fails (out of memory, a crash, no answer), the verdict is the verifier's error, never the
    // candidate's, unless the evaluation was cancelled.
    bool referenceRequest(TorchReference &reference, const QByteArray &line, int timeoutMs,
                          const QString &during, SandboxProcess::Reply *reply);
    void failVerifier(const QString &message);
    quint64 seed(int index) const;
    // The visible input set's seed: public, not drawn from the run's secret ("ln-vis", 47 bits).
    static constexpr quint64 kVisibleSeed = 0x6c6e2d766973ull;

    const VerifierOptions &m_options;
    TorchBackend &m_backend;
    const Task &m_task;
    QString m_source;
    // The run's language (VerifierOptions::torchLanguage), or the source's own under "auto".
    const KernelLanguage &m_language;
    quint64 m_secret;
    const std::atomic<bool> &m_cancel;

    QString m_extensionDir;
    std::unique_ptr<TorchProcess> m_candidate;
    bool m_compiled = false;
    bool m_buildStartedAhead = false;
    bool m_warmed = false;
    double m_warmMs = 0.0; // the first call's, when the language compiles on it
    bool m_correct = false;
    QString m_isolation;
    QJsonObject m_lastAnswer; // the candidate's reply to its last call
    qint64 m_outputAt = 0;    // where the candidate writes outputs in its buffer
    AdaptiveTiming m_candidateTiming;
    AdaptiveTiming m_eagerTiming;
    AdaptiveTiming m_compiledTiming;
    bool m_compiledBaseline = false;
    QList<double> m_candidateWalls;
    QList<double> m_eagerWalls;
    double m_reportedMs = 0.0;     // what the candidate's process said its timed rounds took
    double m_observedMs = 0.0;     // what the engine measured around those rounds
    EngineClockBound m_clockBound; // the candidate's rounds against eager's, call by call
    double m_candidateUnexplainedMs = 0.0; // worker time beyond the candidate's calls
    double m_eagerUnexplainedMs = 0.0;     // the same for eager PyTorch
    QString m_lockName;
    QString m_gpuUuid;         // for NVML; empty on the CPU device or where the probe did not say
    qint64 m_deviceMemory = 0; // the GPU's, in bytes; 0 on the CPU device or where unknown
    QJsonObject m_memoryPlan;  // planMemory()'s decision, in the correctness stage
    QJsonArray m_loadedExtensions; // how the candidate's process got its extensions (ditto)
    QJsonObject m_startTimes;      // its sandbox's start and the module's import, in ms (ditto)
    std::unique_ptr<DeviceLock> m_deviceLock; // shared for correctness, exclusive for timing
    double m_lockWaitMs = 0.0;
    quint64 m_timingSince = 0; // µs since the epoch, when the timed window began
    QSet<qint64> m_ownPids;    // this process, the candidate's and the reference's
};

} // namespace kiln
