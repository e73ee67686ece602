#include "timingstats.h"

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
    return {{QStringLiteral("n"), n},           {QStringLiteral("mean"), mean},
            {QStringLiteral("median"), median}, {QStringLiteral("std"), stddev},
            {QStringLiteral("sem"), sem},       {QStringLiteral("min"), min},
            {QStringLiteral("max"), max}};
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
    return stats;
}

} // namespace kiln
