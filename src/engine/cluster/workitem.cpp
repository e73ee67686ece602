#include "engine/cluster/workitem.h"

namespace kiln {

namespace {

const QString kItemFormat = QStringLiteral("kiln-work-item");

} // namespace

bool WorkItem::hasFormat(const QJsonObject &o, const QString &format, QString *error)
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

QJsonObject WorkItem::toJson() const
{
    QJsonObject object{{QStringLiteral("format"), kItemFormat},
                       {QStringLiteral("version"), kVersion},
                       {QStringLiteral("id"), id},
                       {QStringLiteral("task"), task},
                       {QStringLiteral("backend"), backendName(backend)},
                       {QStringLiteral("source"), source},
                       // A string: a JSON number would lose the low bits of a 64-bit secret.
                       {QStringLiteral("secret"), QString::number(secret)},
                       {QStringLiteral("lenient"), lenient}};
    if (!extraShapes.isEmpty())
        object.insert(QStringLiteral("extra_shapes"), extraShapes);
    if (!language.isEmpty())
        object.insert(QStringLiteral("language"), language);
    return object;
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
    item.extraShapes = o.value(QStringLiteral("extra_shapes")).toArray();
    item.language = o.value(QStringLiteral("language")).toString();
    return item;
}

} // namespace kiln
