#pragma once

#include "core/budgetusage.h"
#include "engine/budget/budgetaxis.h"

#include <QMap>
#include <QString>

namespace kiln {

// Limits on any number of compute axes plus the stopping rules (target speedup, plateau).
// The engine charges every generation and evaluation here and asks how much it may still start.
class BudgetLedger
{
public:
    void setLimit(BudgetAxis axis, double limit) { m_limits[axis] = limit; }
    QMap<BudgetAxis, double> limits() const { return m_limits; }
    void setTargetSpeedup(double target) { m_targetSpeedup = target; }
    // Stop after this many consecutive rounds without a better best speedup (0: never).
    void setPlateauRounds(int rounds) { m_plateauRounds = rounds; }

    void charge(const BudgetUsage &usage) { m_used += usage; }
    void setUsed(const BudgetUsage &usage) { m_used = usage; }
    const BudgetUsage &used() const { return m_used; }

    // How many new requests may start without overspending a count budget (samples, evals),
    // given `inFlight` already started. `cap` bounds the answer when no count limit is set.
    int startableRequests(int inFlight, int cap) const;
    // Records the best speedup after a round, for the plateau rule.
    void endRound(double bestSpeedup);
    // Empty while the run may go on; otherwise why it must stop.
    QString stopReason() const;

private:
    QMap<BudgetAxis, double> m_limits;
    BudgetUsage m_used;
    double m_targetSpeedup = 0.0;
    int m_plateauRounds = 0;
    double m_bestSpeedup = 0.0;
    int m_roundsWithoutGain = 0;
};

} // namespace kiln
