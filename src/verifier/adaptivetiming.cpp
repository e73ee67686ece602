#include "adaptivetiming.h"

#include <QString>
#include <algorithm>
#include <cmath>

namespace kiln {

void AdaptiveTiming::add(double ms)
{
    if (m_seen++ >= m_rules.warmup)
        m_samples.push_back(ms);
}

AdaptiveTiming::Stop AdaptiveTiming::decide(double elapsedMs) const
{
    const int n = static_cast<int>(m_samples.size());
    if (n >= m_rules.minTrials) {
        const double median = stats().median;
        if (median > 0.0 && medianStandardError() / median <= m_rules.targetRelativeSem)
            return Stop::Converged;
    }
    if (n >= m_rules.maxTrials)
        return Stop::TrialCap;
    // The budget never ends timing before there are two samples to take a spread from.
    if (elapsedMs >= m_rules.budgetMs && n >= 2)
        return Stop::TimeCap;
    return Stop::Continue;
}

// The verdict rests on medians, so the loop asks for a precise median: its standard error,
// estimated robustly as 1.253 * 1.4826 * MAD / sqrt(n) (the normal-theory value, with the
// median absolute deviation for sigma). The mean's standard error let a few outliers of a busy
// machine hold the loop to its time cap while the median had long settled.
double AdaptiveTiming::medianStandardError() const
{
    if (m_samples.empty())
        return 0.0;
    const double median = stats().median;
    std::vector<double> deviations;
    deviations.reserve(m_samples.size());
    for (double s : m_samples)
        deviations.push_back(std::abs(s - median));
    std::nth_element(deviations.begin(), deviations.begin() + deviations.size() / 2,
                     deviations.end());
    const double mad = deviations[deviations.size() / 2];
    return 1.2533 * 1.4826 * mad / std::sqrt(double(m_samples.size()));
}

int AdaptiveTiming::nextBatch(double elapsedMs, int limit) const
{
    const int n = static_cast<int>(m_samples.size());
    const int needed = std::max(1, m_rules.warmup + m_rules.minTrials - m_seen);
    if (n < 2 || elapsedMs <= 0.0)
        return std::clamp(needed, 1, limit);
    // Spend what is left of the budget at the pace seen so far.
    const double perTrial = elapsedMs / m_seen;
    const int affordable = static_cast<int>((m_rules.budgetMs - elapsedMs) / perTrial);
    return std::clamp(std::min(affordable, m_rules.maxTrials - n), 1, limit);
}

QString AdaptiveTiming::stopName(Stop stop)
{
    switch (stop) {
    case Stop::Continue:
        return QStringLiteral("continue");
    case Stop::Converged:
        return QStringLiteral("converged");
    case Stop::TrialCap:
        return QStringLiteral("trial cap");
    case Stop::TimeCap:
        return QStringLiteral("time cap");
    }
    return {};
}

} // namespace kiln
