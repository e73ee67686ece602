#include "verifier/harness/evaluationrecorder.h"

#include "verifier/harness/verdictrules.h"
#include "verifier/screen/flagcatalog.h"

#include <algorithm>

namespace kiln {

void EvaluationRecorder::addFlag(EvaluationResult &result, const QString &id, const QString &detail)
{
    for (const CheatFlag &flag : result.flags)
        if (flag.id == id)
            return;
    result.flags.append(FlagCatalog::make(id, {}, detail));
}

void EvaluationRecorder::addStage(EvaluationResult &result, const QString &name, bool ok, double ms,
                                  const QString &detail, const QJsonObject &data)
{
    StageResult stage;
    stage.name = name;
    stage.ok = ok;
    stage.ms = ms;
    stage.detail = detail;
    stage.data = data;
    result.stages.append(stage);
}

void EvaluationRecorder::recordTimes(EvaluationResult &result, const TimingStats &candidate,
                                     const TimingStats &baseline,
                                     const std::vector<double> &candidateSamples,
                                     const std::vector<double> &baselineSamples, int kinds)
{
    result.candidateTiming = candidate;
    result.baselineTiming = baseline;
    const bool paired = !candidateSamples.empty() && !baselineSamples.empty();
    result.candidateMs =
        paired ? SpeedupInterval::typicalTime(candidateSamples, kinds) : candidate.median;
    result.baselineMs =
        paired ? SpeedupInterval::typicalTime(baselineSamples, kinds) : baseline.median;
    if (*result.candidateMs > 0.0)
        result.speedup = *result.baselineMs / *result.candidateMs;
    result.speedupInterval = SpeedupInterval::bootstrap(candidateSamples, baselineSamples, kinds);
    if (result.speedup && !result.speedupInterval) // one pair: no spread to take an interval from
        result.speedupInterval = SpeedupInterval{*result.speedup, *result.speedup, *result.speedup};
}

QString EvaluationRecorder::speedupText(const EvaluationResult &result)
{
    if (result.speedupInterval)
        return result.speedupInterval->text();
    return QStringLiteral("%1x").arg(result.speedup.value_or(0.0), 0, 'f', 2);
}

double EvaluationRecorder::judgeRoofline(EvaluationResult &result, double bytes, double flops,
                                         double bandwidth, double peakFlops, double bandwidthSlack,
                                         double largeSpeedup)
{
    const TimingStats &timing = result.candidateTiming;
    const double memoryMs = bandwidth > 0 ? bytes / bandwidth * 1e3 : 0.0;
    const double computeMs = peakFlops > 0 ? flops / peakFlops * 1e3 : 0.0;
    const double floorMs = std::max(memoryMs, computeMs);
    if (timing.median > 0.0 && floorMs > 0.0)
        result.rooflineFraction = floorMs / timing.median;
    const double impossibleMs = std::max(memoryMs / bandwidthSlack, computeMs);
    if (timing.n > 0 && timing.median < impossibleMs)
        addFlag(result, QStringLiteral("implausibly_fast"),
                QStringLiteral("%1 ms, floor %2 ms")
                    .arg(timing.median, 0, 'g', 3)
                    .arg(impossibleMs, 0, 'g', 3));
    if (result.speedup && *result.speedup > largeSpeedup)
        addFlag(result, QStringLiteral("large_speedup"),
                QStringLiteral("%1x").arg(*result.speedup, 0, 'f', 1));
    return floorMs;
}

void EvaluationRecorder::conclude(EvaluationResult &result, const Outcome &outcome)
{
    VerdictInputs inputs;
    inputs.compiled = outcome.compiled;
    inputs.objectBuilt = outcome.objectBuilt;
    inputs.correct = outcome.correct;
    inputs.flags = result.flags;
    QString wrongDetail = outcome.wrongDetail;
    if (outcome.failure) {
        if (outcome.failure->verdict == Verdict::CompileError) {
            inputs.compiled = false;
            inputs.objectBuilt = false;
            if (wrongDetail.isEmpty())
                wrongDetail = outcome.failure->message;
        } else {
            inputs.compiled = true;
            inputs.runtimeFailure = outcome.failure->verdict;
        }
    }
    result.verdict = VerdictRules::decide(inputs);
    result.correct = outcome.correct && result.verdict != Verdict::Wrong;
    if (result.verdict != Verdict::Pass && result.verdict != Verdict::Flagged) {
        result.speedup.reset();
        result.speedupInterval.reset();
        result.candidateMs.reset();
        result.baselineMs.reset();
        result.rooflineFraction.reset();
    }
    QStringList blocking;
    for (const CheatFlag &flag : result.flags)
        if (flag.blocking)
            blocking << flag.id;
    switch (result.verdict) {
    case Verdict::Pass:
        result.summary = result.speedup
                             ? QStringLiteral("correct; %1 the reference's speed (%2 ms vs %3 ms)")
                                   .arg(speedupText(result))
                                   .arg(*result.candidateMs, 0, 'g', 3)
                                   .arg(*result.baselineMs, 0, 'g', 3)
                             : QStringLiteral("correct (not timed)");
        break;
    case Verdict::Flagged:
        result.summary = QStringLiteral("blocked by %1").arg(blocking.join(QStringLiteral(", ")));
        break;
    case Verdict::Wrong:
    case Verdict::CompileError:
        result.summary = wrongDetail;
        break;
    default:
        result.summary = outcome.failure ? outcome.failure->message : QString();
    }
    addStage(result, QStringLiteral("verdict"), result.verdict == Verdict::Pass, 0.0,
             result.summary,
             {{QStringLiteral("verdict"), verdictName(result.verdict)},
              {QStringLiteral("isolation"), outcome.isolation}});
}

} // namespace kiln
