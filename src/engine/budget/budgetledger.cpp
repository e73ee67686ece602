#include "engine/budget/budgetledger.h"

#include <algorithm>
#include <cmath>

namespace kiln {

int BudgetLedger::startableRequests(int inFlight, int cap) const
{
    int allowed = cap;
    for (auto it = m_limits.cbegin(); it != m_limits.cend(); ++it) {
        const double used = usageOnAxis(m_used, it.key());
        if (isCountAxis(it.key())) {
            // Every request costs one sample and one evaluation.
            const double left = std::floor(it.value() - used) - inFlight;
            allowed = std::min(allowed, int(std::max(0.0, left)));
        } else if (used >= it.value()) {
            allowed = 0;
        }
    }
    return std::max(0, allowed);
}

void BudgetLedger::endRound(double bestSpeedup)
{
    if (bestSpeedup > m_bestSpeedup * (1.0 + 1e-9)) {
        m_bestSpeedup = bestSpeedup;
        m_roundsWithoutGain = 0;
    } else {
        ++m_roundsWithoutGain;
    }
}

QString BudgetLedger::stopReason() const
{
    for (auto it = m_limits.cbegin(); it != m_limits.cend(); ++it) {
        if (usageOnAxis(m_used, it.key()) >= it.value())
            return QStringLiteral("budget spent on %1").arg(budgetAxisName(it.key()));
    }
    if (m_targetSpeedup > 0.0 && m_bestSpeedup >= m_targetSpeedup)
        return QStringLiteral("target speedup %1x reached").arg(m_targetSpeedup);
    if (m_plateauRounds > 0 && m_roundsWithoutGain >= m_plateauRounds)
        return QStringLiteral("plateau: %1 rounds without a better kernel")
            .arg(m_roundsWithoutGain);
    return {};
}

} // namespace kiln
