#include "timingstats.h"

#include <QJsonArray>
#include <QString>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln {

TimingStats TimingStats::fromSamples(std::vector<double> samples)
{
    TimingStats stats;
    stats.n = static_cast<int>(samples.size());
    if (samples.empty())
        return stats;
    const auto kept = std::min<qsizetype>(qsizetype(samples.size()), kMaxTrials);
    stats.trials.reserve(kept);
    for (qsizetype i = 0; i < kept; ++i)
        stats.trials.append(QString::number(samples[size_t(i)], 'g', 4).toDouble());
    std::sort(samples.begin(), samples.end());
    const double sum = std::accumulate(samples.begin(), samples.end(), 0.0);
    stats.mean = sum / stats.n;
    const size_t mid = samples.size() / 2;
    stats.median = samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
    double squares = 0.0;
    for (double s : samples)
        squares += (s - stats.mean) * (s - stats.mean);
    stats.stddev = stats.n > 1 ? std::sqrt(squares / (stats.n - 1)) : 0.0;
    stats.sem = stats.n > 1 ? stats.stddev / std::sqrt(double(stats.n)) : 0.0;
    stats.min = samples.front();
    stats.max = samples.back();
    return stats;
}

QJsonObject TimingStats::toJson() const
{
    QJsonObject object{{QStringLiteral("n"), n},           {QStringLiteral("mean"), mean},
                       {QStringLiteral("median"), median}, {QStringLiteral("std"), stddev},
                       {QStringLiteral("sem"), sem},       {QStringLiteral("min"), min},
                       {QStringLiteral("max"), max}};
    return object;
}

QJsonObject TimingStats::toJsonWithTrials() const
{
    QJsonObject object = toJson();
    if (!trials.isEmpty()) {
        QJsonArray values;
        for (double t : trials)
            values.append(t);
        object.insert(QStringLiteral("trials"), values);
    }
    return object;
}

TimingStats TimingStats::fromJson(const QJsonObject &object)
{
    TimingStats stats;
    stats.n = object.value(QStringLiteral("n")).toInt();
    stats.mean = object.value(QStringLiteral("mean")).toDouble();
    stats.median = object.value(QStringLiteral("median")).toDouble();
    stats.stddev = object.value(QStringLiteral("std")).toDouble();
    stats.sem = object.value(QStringLiteral("sem")).toDouble();
    stats.min = object.value(QStringLiteral("min")).toDouble();
    stats.max = object.value(QStringLiteral("max")).toDouble();
    const QJsonArray values = object.value(QStringLiteral("trials")).toArray();
    for (const QJsonValue &v : values)
        stats.trials.append(v.toDouble());
    return stats;
}

} // namespace kiln
