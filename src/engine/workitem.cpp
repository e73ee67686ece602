#include "workitem.h"

namespace kiln {

namespace {

const QString kItemFormat = QStringLiteral("kiln-work-item");
const QString kResultFormat = QStringLiteral("kiln-work-result");
constexpr int kVersion = 1;

bool hasFormat(const QJsonObject &o, const QString &format, QString *error)
{
    if (o.value(QStringLiteral("format")).toString() != format ||
        o.value(QStringLiteral("version")).toInt() != kVersion) {
        *error = QStringLiteral("not a %1 of version %2").arg(format).arg(kVersion);
        return false;
    }
    if (o.value(QStringLiteral("id")).toString().isEmpty()) {
        *error = QStringLiteral("%1 without an id").arg(format);
        return false;
    }
    return true;
}

} // namespace

QJsonObject WorkItem::toJson() const
{
    return {{QStringLiteral("format"), kItemFormat},
            {QStringLiteral("version"), kVersion},
            {QStringLiteral("id"), id},
            {QStringLiteral("task"), task},
            {QStringLiteral("backend"), backendName(backend)},
            {QStringLiteral("source"), source},
            // A string: a JSON number would lose the low bits of a 64-bit secret.
            {QStringLiteral("secret"), QString::number(secret)},
            {QStringLiteral("lenient"), lenient}};
}

std::optional<WorkItem> WorkItem::fromJson(const QJsonObject &o, QString *error)
{
    if (!hasFormat(o, kItemFormat, error))
        return std::nullopt;
    WorkItem item;
    item.id = o.value(QStringLiteral("id")).toString();
    item.task = o.value(QStringLiteral("task")).toString();
    const std::optional<Backend> backend =
        backendFromName(o.value(QStringLiteral("backend")).toString());
    bool secretOk = false;
    item.secret = o.value(QStringLiteral("secret")).toString().toULongLong(&secretOk);
    if (item.task.isEmpty() || !backend || !secretOk) {
        *error = QStringLiteral("work item %1 lacks a task, a backend or a secret").arg(item.id);
        return std::nullopt;
    }
    item.backend = *backend;
    item.source = o.value(QStringLiteral("source")).toString();
    item.lenient = o.value(QStringLiteral("lenient")).toBool();
    return item;
}

QJsonObject WorkResult::toJson() const
{
    return {{QStringLiteral("format"), kResultFormat},
            {QStringLiteral("version"), kVersion},
            {QStringLiteral("id"), id},
            {QStringLiteral("evaluation"), evaluation.toJson()},
            {QStringLiteral("node"), node},
            {QStringLiteral("job"), job},
            {QStringLiteral("gpus"), gpus},
            {QStringLiteral("worker_ms"), workerMs}};
}

std::optional<WorkResult> WorkResult::fromJson(const QJsonObject &o, QString *error)
{
    if (!hasFormat(o, kResultFormat, error))
        return std::nullopt;
    if (!o.value(QStringLiteral("evaluation")).isObject()) {
        *error = QStringLiteral("work result without an evaluation");
        return std::nullopt;
    }
    WorkResult result;
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
