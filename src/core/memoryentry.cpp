#include "memoryentry.h"

namespace kiln {

namespace {

QJsonValue optionalId(const std::optional<qint64> &id)
{
    return id ? QJsonValue(double(*id)) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

std::optional<qint64> idFrom(const QJsonValue &value)
{
    return value.isDouble() ? std::optional<qint64>(qint64(value.toDouble())) : std::nullopt;
}

std::optional<double> numberFrom(const QJsonValue &value)
{
    return value.isDouble() ? std::optional<double>(value.toDouble()) : std::nullopt;
}

} // namespace

double MemoryEntry::gain() const
{
    return speedupBefore > 0.0 && speedupAfter > 0.0 ? speedupAfter / speedupBefore : 1.0;
}

QJsonObject MemoryEntry::toJson() const
{
    return {{QStringLiteral("id"), double(id)},
            {QStringLiteral("task"), task},
            {QStringLiteral("backend"), backend},
            {QStringLiteral("shape"), shape},
            {QStringLiteral("run_id"), optionalId(runId)},
            {QStringLiteral("parent_id"), optionalId(parentId)},
            {QStringLiteral("child_id"), optionalId(childId)},
            {QStringLiteral("idea"), idea},
            {QStringLiteral("diff"), diff},
            {QStringLiteral("speedup_before"), speedupBefore},
            {QStringLiteral("speedup_after"), speedupAfter},
            {QStringLiteral("gain"), gain()},
            {QStringLiteral("ms_before"), optionalNumber(msBefore)},
            {QStringLiteral("ms_after"), optionalNumber(msAfter)},
            {QStringLiteral("edited"), edited},
            {QStringLiteral("created_at"), createdAt.toString(Qt::ISODateWithMs)}};
}

MemoryEntry MemoryEntry::fromJson(const QJsonObject &o)
{
    MemoryEntry e;
    e.id = qint64(o.value(QStringLiteral("id")).toDouble());
    e.task = o.value(QStringLiteral("task")).toString();
    e.backend = o.value(QStringLiteral("backend")).toString();
    e.shape = o.value(QStringLiteral("shape")).toString();
    e.runId = idFrom(o.value(QStringLiteral("run_id")));
    e.parentId = idFrom(o.value(QStringLiteral("parent_id")));
    e.childId = idFrom(o.value(QStringLiteral("child_id")));
    e.idea = o.value(QStringLiteral("idea")).toString();
    e.diff = o.value(QStringLiteral("diff")).toString();
    e.speedupBefore = o.value(QStringLiteral("speedup_before")).toDouble();
    e.speedupAfter = o.value(QStringLiteral("speedup_after")).toDouble();
    e.msBefore = numberFrom(o.value(QStringLiteral("ms_before")));
    e.msAfter = numberFrom(o.value(QStringLiteral("ms_after")));
    e.edited = o.value(QStringLiteral("edited")).toBool();
    e.createdAt =
        QDateTime::fromString(o.value(QStringLiteral("created_at")).toString(), Qt::ISODateWithMs);
    return e;
}

} // namespace kiln
