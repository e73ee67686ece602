#include "cheatflag.h"

#include <QJsonArray>

namespace kiln {

QJsonObject CheatFlag::toJson() const
{
    QJsonArray lineArray;
    for (int line : lines)
        lineArray.append(line);
    return {{QStringLiteral("id"), id},
            {QStringLiteral("message"), message},
            {QStringLiteral("lines"), lineArray},
            {QStringLiteral("blocking"), blocking}};
}

CheatFlag CheatFlag::fromJson(const QJsonObject &object)
{
    CheatFlag flag;
    flag.id = object.value(QStringLiteral("id")).toString();
    flag.message = object.value(QStringLiteral("message")).toString();
    for (const QJsonValue &line : object.value(QStringLiteral("lines")).toArray())
        flag.lines.append(line.toInt());
    flag.blocking = object.value(QStringLiteral("blocking")).toBool();
    return flag;
}

} // namespace kiln
