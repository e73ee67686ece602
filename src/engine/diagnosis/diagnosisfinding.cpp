#include "engine/diagnosis/diagnosisfinding.h"

#include <QJsonArray>

namespace kiln {

QJsonObject DiagnosisFinding::toJson() const
{
    QJsonArray ids, roundList;
    for (qint64 id : candidates)
        ids.append(id);
    for (int round : rounds)
        roundList.append(round);
    return {{QStringLiteral("analyzer"), analyzer}, {QStringLiteral("title"), title},
            {QStringLiteral("rating"), rating},     {QStringLiteral("finding"), finding},
            {QStringLiteral("candidates"), ids},    {QStringLiteral("rounds"), roundList},
            {QStringLiteral("figures"), figures}};
}

DiagnosisFinding DiagnosisFinding::fromJson(const QJsonObject &object)
{
    DiagnosisFinding f;
    f.analyzer = object.value(QStringLiteral("analyzer")).toString();
    f.title = object.value(QStringLiteral("title")).toString();
    f.rating = object.value(QStringLiteral("rating")).toInt(1);
    f.finding = object.value(QStringLiteral("finding")).toString();
    for (const QJsonValue &id : object.value(QStringLiteral("candidates")).toArray())
        f.candidates.append(qint64(id.toDouble()));
    for (const QJsonValue &round : object.value(QStringLiteral("rounds")).toArray())
        f.rounds.append(round.toInt());
    f.figures = object.value(QStringLiteral("figures")).toObject();
    return f;
}

int DiagnosisFinding::rate(double value, const double (&thresholds)[4])
{
    int rating = 1;
    for (double threshold : thresholds)
        if (value >= threshold)
            ++rating;
    return rating;
}

} // namespace kiln
