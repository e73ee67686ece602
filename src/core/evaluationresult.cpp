#include "evaluationresult.h"

#include <QJsonArray>

namespace kiln {

namespace {

QJsonValue optionalToJson(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

std::optional<double> optionalFromJson(const QJsonValue &value)
{
    if (value.isDouble())
        return value.toDouble();
    return std::nullopt;
}

} // namespace

bool EvaluationResult::hasBlockingFlag() const
{
    for (const CheatFlag &flag : flags) {
        if (flag.blocking)
            return true;
    }
    return false;
}

const StageResult *EvaluationResult::stage(const QString &name) const
{
    for (const StageResult &s : stages) {
        if (s.name == name)
            return &s;
    }
    return nullptr;
}

QJsonObject EvaluationResult::toJson() const
{
    QJsonArray flagArray;
    for (const CheatFlag &flag : flags)
        flagArray.append(flag.toJson());
    QJsonArray stageArray;
    for (const StageResult &s : stages)
        stageArray.append(s.toJson());
    QJsonObject object{{QStringLiteral("verdict"), verdictName(verdict)},
                       {QStringLiteral("correct"), correct},
                       {QStringLiteral("backend"), backendName(backend)},
                       {QStringLiteral("speedup"), optionalToJson(speedup)},
                       {QStringLiteral("candidate_ms"), optionalToJson(candidateMs)},
                       {QStringLiteral("baseline_ms"), optionalToJson(baselineMs)},
                       {QStringLiteral("roofline_fraction"), optionalToJson(rooflineFraction)},
                       {QStringLiteral("flags"), flagArray},
                       {QStringLiteral("stages"), stageArray},
                       {QStringLiteral("summary"), summary}};
    if (compiledBaselineMs)
        object.insert(QStringLiteral("compiled_baseline_ms"), *compiledBaselineMs);
    if (compiledSpeedup)
        object.insert(QStringLiteral("speedup_compiled"), *compiledSpeedup);
    if (speedupInterval)
        object.insert(QStringLiteral("speedup_interval"), speedupInterval->toJson());
    if (confirmed)
        object.insert(QStringLiteral("confirmed"), true);
    if (duplicateOf)
        object.insert(QStringLiteral("duplicate_of"), double(*duplicateOf));
    if (!disturbance.isEmpty())
        object.insert(QStringLiteral("disturbance"), disturbance);
    if (candidateTiming.n > 0)
        object.insert(QStringLiteral("candidate_timing"), candidateTiming.toJson());
    if (baselineTiming.n > 0)
        object.insert(QStringLiteral("baseline_timing"), baselineTiming.toJson());
    return object;
}

EvaluationResult EvaluationResult::fromJson(const QJsonObject &object)
{
    EvaluationResult result;
    result.verdict = verdictFromName(object.value(QStringLiteral("verdict")).toString())
                         .value_or(Verdict::Crash);
    result.correct = object.value(QStringLiteral("correct")).toBool();
    result.backend =
        backendFromName(object.value(QStringLiteral("backend")).toString()).value_or(Backend::Cpu);
    result.speedup = optionalFromJson(object.value(QStringLiteral("speedup")));
    result.candidateMs = optionalFromJson(object.value(QStringLiteral("candidate_ms")));
    result.baselineMs = optionalFromJson(object.value(QStringLiteral("baseline_ms")));
    result.rooflineFraction = optionalFromJson(object.value(QStringLiteral("roofline_fraction")));
    result.compiledBaselineMs =
        optionalFromJson(object.value(QStringLiteral("compiled_baseline_ms")));
    result.compiledSpeedup = optionalFromJson(object.value(QStringLiteral("speedup_compiled")));
    result.speedupInterval =
        SpeedupInterval::fromJson(object.value(QStringLiteral("speedup_interval")).toObject());
    result.confirmed = object.value(QStringLiteral("confirmed")).toBool();
    if (object.value(QStringLiteral("duplicate_of")).isDouble())
        result.duplicateOf = qint64(object.value(QStringLiteral("duplicate_of")).toDouble());
    result.disturbance = object.value(QStringLiteral("disturbance")).toString();
    for (const QJsonValue &flag : object.value(QStringLiteral("flags")).toArray())
        result.flags.append(CheatFlag::fromJson(flag.toObject()));
    for (const QJsonValue &s : object.value(QStringLiteral("stages")).toArray())
        result.stages.append(StageResult::fromJson(s.toObject()));
    result.candidateTiming =
        TimingStats::fromJson(object.value(QStringLiteral("candidate_timing")).toObject());
    result.baselineTiming =
        TimingStats::fromJson(object.value(QStringLiteral("baseline_timing")).toObject());
    result.summary = object.value(QStringLiteral("summary")).toString();
    return result;
}

} // namespace kiln
