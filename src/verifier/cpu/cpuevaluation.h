#pragma once

#include "core/evaluationresult.h"
#include "verifier/cpu/baselinesandboxes.h"
#include "verifier/harness/backendevaluation.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/sandboxcompiler.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/timingloop.h"
#include "verifier/harness/verifieroptions.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTemporaryDir>
#include <atomic>
#include <optional>

namespace kiln {

class CpuActivity;
class CpuTimingSession;

// One candidate's trip through the CPU pipeline; Verifier::evaluate creates one per call.
class CpuEvaluation : private BackendEvaluation
{
public:
    CpuEvaluation(const VerifierOptions &options, CompileCache &cache, ReferenceBank &references,
                  BaselineSandboxes &baselines, const Task &task, const QString &source,
                  quint64 runSecret, const std::atomic<bool> &cancel);
    EvaluationResult run();

private:
    bool screenAndCompile();
    QList<CheatFlag> screen(const CompiledArtifact &artifact); // records the "screen" stage
    void recordCompileFailure(const SandboxCompiler::Outcome &outcome);
    static QString compileDetail(const CompiledArtifact &artifact, const QJsonArray &diagnostics);
    static bool linkFailureExplained(const QJsonArray &diagnostics, const QList<CheatFlag> &flags);
    bool loadCandidate();
    bool checkCorrectness();
    void judgeNaively();
    void measureTiming();
    TimingLoop::Outcome timeUndisturbed(CpuTimingSession &session,
                                        const AdaptiveTiming::Rules &rules, CpuActivity &activity);
    QString clockGap(const CpuTimingSession &session) const;
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
    bool m_compiled = false;
    bool m_objectBuilt = false;
    bool m_correct = false;
    double m_referenceMs = 0.0;
    double m_lockWaitMs = 0.0;     // waiting for the machine's timing lock
    double m_engineMsBefore = 0.0; // the session's clocks when the last attempt began
    double m_explainedMsBefore = 0.0;
    QStringList m_disturbances;        // what other processes did, one entry per timing attempt
    QString m_clockGap;                // the last attempt's clocks disagreed: the evidence
    QStringList m_clockGapsTimedAgain; // earlier attempts' gaps, each followed by another
    QString m_sharedObject;            // the compiled candidate, in the compile cache
};

} // namespace kiln
