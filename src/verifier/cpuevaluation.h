#pragma once

#include "baselinesandboxes.h"
#include "compilecache.h"
#include "core/evaluationresult.h"
#include "evaluationrecorder.h"
#include "referencebank.h"
#include "sandboxprocess.h"
#include "timingloop.h"
#include "verifieroptions.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <atomic>
#include <optional>

namespace kiln {

class CpuActivity;
class CpuTimingSession;

// One candidate's trip through the CPU pipeline; Verifier::evaluate creates one per call.
class CpuEvaluation
{
public:
    CpuEvaluation(const VerifierOptions &options, CompileCache &cache, ReferenceBank &references,
                  BaselineSandboxes &baselines, const Task &task, const QString &source,
                  quint64 runSecret, const std::atomic<bool> &cancel);
    EvaluationResult run();

private:
    using Failure = EvaluationRecorder::Failure;

    bool screenAndCompile();
    bool loadCandidate();
    bool checkCorrectness();
    void judgeNaively();
    void measureTiming();
    TimingLoop::Outcome timeUndisturbed(CpuTimingSession &session,
                                        const AdaptiveTiming::Rules &rules, CpuActivity &activity);
    void recordTimingFailure(const CpuTimingSession &session, bool cancelled,
                             const SandboxProcess &baseline);
    static QString describeBaselineFailure(const SandboxProcess::Reply &reply,
                                           const SandboxProcess &baseline);
    void reportTiming(const CpuTimingSession &session, const TimingLoop::Outcome &outcome,
                      const ShapeConfig &shape, double stageMs, double setupMs);
    EvaluationResult finish();
    EvaluationResult cancelledWaiting(); // stopped while waiting for the CPU's lock

    // Turns a failed request into a crash / timeout / resource failure (or a protocol error).
    void recordRequestFailure(const SandboxProcess::Reply &reply, const QString &during);
    void addFlag(const QString &id, const QString &detail = {});
    void addStage(const QString &name, bool ok, double ms, const QString &detail,
                  const QJsonObject &data = {});
    bool inputsIntact(const QList<QPair<qint64, QByteArray>> &inputs) const;

    const VerifierOptions &m_options;
    CompileCache &m_cache;
    ReferenceBank &m_references;
    BaselineSandboxes &m_baselines;
    const Task &m_task;
    QString m_source;
    quint64 m_secret;
    const std::atomic<bool> &m_cancel;

    std::unique_ptr<SandboxProcess> m_sandbox;
    std::shared_ptr<const RunReference> m_reference;
    EvaluationResult m_result;
    bool m_compiled = false;
    bool m_objectBuilt = false;
    bool m_correct = false;
    std::optional<Failure> m_failure;
    QString m_wrongDetail;
    int m_calls = 0;
    double m_referenceMs = 0.0;
    double m_lockWaitMs = 0.0;     // waiting for the machine's timing lock
    double m_engineMsBefore = 0.0; // the session's clocks when the last attempt began
    double m_explainedMsBefore = 0.0;
    QStringList m_disturbances; // what other processes did, one entry per timing attempt
    QString m_sharedObject;     // the compiled candidate, in the compile cache
};

} // namespace kiln
