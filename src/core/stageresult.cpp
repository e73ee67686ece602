#include "stageresult.h"

namespace kiln {

QJsonObject StageResult::toJson() const
{
    QJsonObject object{{QStringLiteral("name"), name},
                       {QStringLiteral("ok"), ok},
                       {QStringLiteral("ms"), ms},
                       {QStringLiteral("detail"), detail}};
    if (!data.isEmpty())
        object.insert(QStringLiteral("data"), data);
    return object;
}

StageResult StageResult::fromJson(const QJsonObject &object)
{
    StageResult stage;
    stage.name = object.value(QStringLiteral("name")).toString();
    stage.ok = object.value(QStringLiteral("ok")).toBool();
    stage.ms = object.value(QStringLiteral("ms")).toDouble();
    stage.detail = object.value(QStringLiteral("detail")).toString();
    stage.data = object.value(QStringLiteral("data")).toObject();
    return stage;
}

} // namespace kiln
