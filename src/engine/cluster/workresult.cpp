#include "engine/cluster/workresult.h"

#include "engine/cluster/workitem.h"

namespace kiln {

namespace {

const QString kResultFormat = QStringLiteral("kiln-work-result");

} // namespace

QJsonObject WorkResult::toJson() const
{
    return {{QStringLiteral("format"), kResultFormat},
            {QStringLiteral("version"), WorkItem::kVersion},
            {QStringLiteral("id"), id},
            {QStringLiteral("evaluation"), evaluation.toJson()},
            {QStringLiteral("node"), node},
            {QStringLiteral("job"), job},
            {QStringLiteral("gpus"), gpus},
            {QStringLiteral("worker_ms"), workerMs},
            {QStringLiteral("error"), error}};
}

std::optional<WorkResult> WorkResult::fromJson(const QJsonObject &o, QString *error)
{
    if (!WorkItem::hasFormat(o, kResultFormat, error))
        return std::nullopt;
    WorkResult result;
    result.error = o.value(QStringLiteral("error")).toString();
    if (result.error.isEmpty() && !o.value(QStringLiteral("evaluation")).isObject()) {
        *error = QStringLiteral("work result without an evaluation");
        return std::nullopt;
    }
    result.id = o.value(QStringLiteral("id")).toString();
    result.evaluation =
        EvaluationResult::fromJson(o.value(QStringLiteral("evaluation")).toObject());
    result.node = o.value(QStringLiteral("node")).toString();
    result.job = o.value(QStringLiteral("job")).toString();
    result.gpus = o.value(QStringLiteral("gpus")).toString();
    result.workerMs = o.value(QStringLiteral("worker_ms")).toDouble();
    return result;
}

} // namespace kiln
