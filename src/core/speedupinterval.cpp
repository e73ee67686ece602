#include "speedupinterval.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln {

namespace {

double medianInPlace(std::vector<double> &values)
{
    const size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    const double upper = values[mid];
    if (values.size() % 2)
        return upper;
    return 0.5 * (*std::max_element(values.begin(), values.begin() + mid) + upper);
}

} // namespace

namespace {

// The samples of kind g (i % groups == g), kinds with no sample left out.
std::vector<std::vector<double>> byKind(const std::vector<double> &samples, size_t n, int groups)
{
    std::vector<std::vector<double>> kinds(size_t(std::max(1, groups)));
    for (size_t i = 0; i < n; ++i)
        kinds[i % kinds.size()].push_back(samples[i]);
    kinds.erase(std::remove_if(kinds.begin(), kinds.end(),
                               [](const std::vector<double> &k) { return k.empty(); }),
                kinds.end());
    return kinds;
}

double meanOfMedians(std::vector<std::vector<double>> &kinds)
{
    double sum = 0.0;
    for (std::vector<double> &k : kinds)
        sum += medianInPlace(k);
    return kinds.empty() ? 0.0 : sum / double(kinds.size());
}

} // namespace

double SpeedupInterval::typicalTime(const std::vector<double> &samples, int groups)
{
    std::vector<std::vector<double>> kinds = byKind(samples, samples.size(), groups);
    return meanOfMedians(kinds);
}

std::optional<SpeedupInterval> SpeedupInterval::bootstrap(const std::vector<double> &candidate,
                                                          const std::vector<double> &baseline,
                                                          int groups)
{
    const size_t n = std::min(candidate.size(), baseline.size());
    if (n < 2)
        return std::nullopt;
    const std::vector<std::vector<double>> candidateKinds = byKind(candidate, n, groups);
    const std::vector<std::vector<double>> baselineKinds = byKind(baseline, n, groups);
    std::vector<std::vector<double>> c = candidateKinds, b = baselineKinds;
    const double candidateTime = meanOfMedians(c);
    const double baselineTime = meanOfMedians(b);
    if (candidateTime <= 0.0 || baselineTime <= 0.0)
        return std::nullopt;
    SpeedupInterval interval;
    interval.estimate = baselineTime / candidateTime;
    std::mt19937_64 random(0x9e3779b97f4a7c15ull ^ n);
    std::vector<double> ratios;
    ratios.reserve(kResamples);
    for (int r = 0; r < kResamples; ++r) {
        // Whole pairs, each drawn from its own kind.
        for (size_t g = 0; g < candidateKinds.size(); ++g) {
            const size_t size = candidateKinds[g].size();
            std::uniform_int_distribution<size_t> pick(0, size - 1);
            for (size_t i = 0; i < size; ++i) {
                const size_t k = pick(random);
                c[g][i] = candidateKinds[g][k];
                b[g][i] = baselineKinds[g][k];
            }
        }
        const double cm = meanOfMedians(c);
        if (cm > 0.0)
            ratios.push_back(meanOfMedians(b) / cm);
    }
    if (ratios.empty())
        return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    const double tail = (1.0 - kLevel) / 2.0;
    const auto at = [&](double q) {
        return ratios[std::min(ratios.size() - 1, size_t(q * double(ratios.size())))];
    };
    // The estimate always lies inside its interval, even where a few pairs dominate resamples.
    interval.low = std::min(at(tail), interval.estimate);
    interval.high = std::max(at(1.0 - tail), interval.estimate);
    return interval;
}

double SpeedupInterval::plusMinus() const
{
    return std::max(high - estimate, estimate - low);
}

double SpeedupInterval::relativeHalfWidth() const
{
    return estimate > 0.0 ? plusMinus() / estimate : 0.0;
}

QString SpeedupInterval::text(int decimals) const
{
    return QStringLiteral("%1x ± %2")
        .arg(estimate, 0, 'f', decimals)
        .arg(plusMinus(), 0, 'f', decimals);
}

bool SpeedupInterval::clearlyFaster(const SpeedupInterval &a, const SpeedupInterval &b,
                                    double noiseFloor)
{
    if (a.low <= b.high)
        return false;
    return b.estimate <= 0.0 || a.estimate / b.estimate > 1.0 + noiseFloor;
}

QJsonObject SpeedupInterval::toJson() const
{
    return {{QStringLiteral("estimate"), estimate},
            {QStringLiteral("low"), low},
            {QStringLiteral("high"), high},
            {QStringLiteral("level"), kLevel},
            {QStringLiteral("method"), QStringLiteral("paired bootstrap of the timed calls")}};
}

std::optional<SpeedupInterval> SpeedupInterval::fromJson(const QJsonObject &object)
{
    if (!object.value(QStringLiteral("low")).isDouble() ||
        !object.value(QStringLiteral("high")).isDouble())
        return std::nullopt;
    SpeedupInterval interval;
    interval.estimate = object.value(QStringLiteral("estimate")).toDouble();
    interval.low = object.value(QStringLiteral("low")).toDouble();
    interval.high = object.value(QStringLiteral("high")).toDouble();
    return interval;
}

} // namespace kiln
