#pragma once

#include "backend.h"
#include "cheatflag.h"
#include "speedupinterval.h"
#include "stageresult.h"
#include "timingstats.h"
#include "verdict.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <optional>

namespace kiln {

// Everything the verifier concluded about one candidate. toJson() is the `kiln-cli eval --json`
// document of cli.md (plus extra keys, which the contract allows).
struct EvaluationResult
{
    Verdict verdict = Verdict::Crash;
    bool correct = false;
    Backend backend = Backend::Cpu;
    std::optional<double> speedup;
    // The speedup's 95 % interval from the paired timed calls; set whenever speedup is.
    std::optional<SpeedupInterval> speedupInterval;
    // Re-measured with more trials against a fresh baseline before it became a run's best.
    bool confirmed = false;
    // The source equals this earlier candidate's of the same run (whitespace and comments
    // aside): its judgement is reused, not measured again.
    std::optional<qint64> duplicateOf;
    // Work of another process overlapped the timed calls and could not be waited out (pids and
    // what was seen); the times are then less certain, never the candidate's fault.
    QString disturbance;
    std::optional<double> candidateMs;
    std::optional<double> baselineMs;
    std::optional<double> rooflineFraction;
    // PyTorch backend: speedup is against eager PyTorch (baselineMs); these are against
    // torch.compile of the same Model, measured in the same session.
    std::optional<double> compiledBaselineMs;
    std::optional<double> compiledSpeedup;
    QList<CheatFlag> flags;
    QList<StageResult> stages;
    TimingStats candidateTiming;
    TimingStats baselineTiming;
    QString summary; // one line: why this verdict

    bool hasBlockingFlag() const;
    const StageResult *stage(const QString &name) const;

    QJsonObject toJson() const;
    static EvaluationResult fromJson(const QJsonObject &object);
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::EvaluationResult)
