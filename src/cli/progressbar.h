#pragma once

#include "core/budgetusage.h"
#include "engine/budget/budgetaxis.h"

#include <QElapsedTimer>

namespace kiln {

// A one-line progress bar on stderr, drawn only when stderr is a terminal (scripts and --json
// consumers see nothing of it).
class ProgressBar
{
public:
    ProgressBar(BudgetAxis axis, double budget);
    void update(const BudgetUsage &used, double bestSpeedup);
    void finish();

private:
    BudgetAxis m_axis;
    double m_budget;
    bool m_enabled;
    bool m_drawn = false;
    QElapsedTimer m_clock;
};

} // namespace kiln
