#include "verifier/harness/adaptivetiming.h"

#include "core/speedupinterval.h"

#include <QString>
#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

// The fewest kept samples decide() may stop at: the minimum, and with several input kinds at
// least three calls of each.
int fewestToStop(const AdaptiveTiming::Rules &rules)
{
    return std::max(rules.minTrials, rules.cycle > 1 ? 3 * rules.cycle : 0);
}

} // namespace

void AdaptiveTiming::add(double ms)
{
    if (m_seen++ >= m_rules.warmup)
        m_samples.push_back(ms);
}

AdaptiveTiming::Stop AdaptiveTiming::decide(double elapsedMs) const
{
    const int n = static_cast<int>(m_samples.size());
    if (m_rules.cycle > 1 && n % m_rules.cycle != 0 && n < m_rules.maxTrials)
        return Stop::Continue; // finish the rotation first
    if (n >= fewestToStop(m_rules)) {
        const double typical = SpeedupInterval::typicalTime(m_samples, m_rules.cycle);
        if (typical > 0.0 && medianStandardError() / typical <= m_rules.targetRelativeSem)
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
namespace {

// 1.253 * 1.4826 * MAD / sqrt(n): the median's standard error, robustly.
double medianError(const std::vector<double> &samples)
{
    if (samples.empty())
        return 0.0;
    const double median = SpeedupInterval::typicalTime(samples);
    std::vector<double> deviations;
    deviations.reserve(samples.size());
    for (double s : samples)
        deviations.push_back(std::abs(s - median));
    std::nth_element(deviations.begin(), deviations.begin() + qsizetype(deviations.size() / 2),
                     deviations.end());
    const double mad = deviations[deviations.size() / 2];
    return 1.2533 * 1.4826 * mad / std::sqrt(double(samples.size()));
}

} // namespace

// With several input kinds, the error of the mean of their medians: each kind's median error,
// added in quadrature and divided by the number of kinds (a bimodal mix of fast and slow kinds
// has a huge MAD overall, but each kind alone is tight).
double AdaptiveTiming::medianStandardError() const
{
    if (m_rules.cycle <= 1)
        return medianError(m_samples);
    const size_t kinds = size_t(m_rules.cycle);
    std::vector<std::vector<double>> byKind(kinds);
    for (size_t i = 0; i < m_samples.size(); ++i)
        byKind[i % kinds].push_back(m_samples[i]);
    double squares = 0.0;
    for (const std::vector<double> &k : byKind) {
        const double e = medianError(k);
        squares += e * e;
    }
    return std::sqrt(squares) / double(kinds);
}

int AdaptiveTiming::nextBatch(double elapsedMs, int limit) const
{
    const int n = static_cast<int>(m_samples.size());
    const int needed = std::max(1, m_rules.warmup + m_rules.minTrials - m_seen);
    // Never past the trial cap, not even to finish a rotation (the cap stops the loop anyway).
    const int room = std::clamp(m_rules.maxTrials - n, 1, std::max(1, limit));
    if (n < 2 || elapsedMs <= 0.0)
        return endOnRotation(std::clamp(needed, 1, room), room);
    // Spend what is left of the budget at the pace seen so far.
    const double perTrial = elapsedMs / m_seen;
    const int affordable = static_cast<int>((m_rules.budgetMs - elapsedMs) / perTrial);
    return endOnRotation(std::clamp(affordable, 1, room), room);
}

// decide() stops only on whole rotations, so a batch that ends inside one adds calls that can
// stop nothing. Batches of 4 after 3 warm-up calls over 4 kinds all ended one call past a
// rotation: CUDA loops ran to their time budget (about 100 calls of vector_add on an H100)
// where 12 kept calls had settled. A batch is stretched to the next rotation where the limit
// allows, else cut back to the one before where decide() could stop there; otherwise it stays
// (cutting batches that are shorter than a rotation would only add requests).
int AdaptiveTiming::endOnRotation(int batch, int limit) const
{
    const int kept = m_seen + batch - m_rules.warmup; // kept samples once the batch is in
    if (m_rules.cycle <= 1 || kept <= 0)
        return batch;
    const int past = kept % m_rules.cycle;
    if (past == 0)
        return batch;
    const int toNext = batch + m_rules.cycle - past;
    if (toNext <= limit)
        return toNext;
    if (batch > past && kept - past >= fewestToStop(m_rules))
        return batch - past;
    return batch;
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
