#include "cheatflag.h"

#include <QJsonArray>

namespace kiln {

QString CheatFlag::defaultTier(bool blocking)
{
    return blocking ? QStringLiteral("hard") : QStringLiteral("telemetry");
}

QString CheatFlag::effectiveTier() const
{
    return tier.isEmpty() ? defaultTier(blocking) : tier;
}

QString CheatFlag::label() const
{
    return QLatin1Char('[') + effectiveTier() + QStringLiteral("] ") + id;
}

QJsonObject CheatFlag::toJson() const
{
    QJsonArray lineArray;
    for (int line : lines)
        lineArray.append(line);
    return {{QStringLiteral("id"), id},
            {QStringLiteral("message"), message},
            {QStringLiteral("lines"), lineArray},
            {QStringLiteral("blocking"), blocking},
            {QStringLiteral("tier"), effectiveTier()}};
}

CheatFlag CheatFlag::fromJson(const QJsonObject &object)
{
    CheatFlag flag;
    flag.id = object.value(QStringLiteral("id")).toString();
    flag.message = object.value(QStringLiteral("message")).toString();
    for (const QJsonValue &line : object.value(QStringLiteral("lines")).toArray())
        flag.lines.append(line.toInt());
    flag.blocking = object.value(QStringLiteral("blocking")).toBool();
    // Results stored before flags had tiers carry none: their blocking says which it was.
    flag.tier = object.value(QStringLiteral("tier")).toString();
    flag.tier = flag.effectiveTier();
    return flag;
}

bool CheatFlag::operator==(const CheatFlag &other) const
{
    return id == other.id && message == other.message && lines == other.lines &&
           blocking == other.blocking && effectiveTier() == other.effectiveTier();
}

} // namespace kiln
