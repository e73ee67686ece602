#pragma once

#include "core/budgetusage.h"
#include "engine/budget/budgetaxis.h"

#include <QMetaType>
#include <QStringList>
#include <algorithm>

namespace kiln {

// Where a live run stands, for the progress bar and the status line: the budget used on the
// run's own axis and on every other one, and what is in flight right now.
struct RunProgress
{
    BudgetUsage used;
    BudgetAxis axis = BudgetAxis::Evals;
    double budget = 0.0;
    double bestSpeedup = 0.0;          // best verified speedup so far (0: none passed yet)
    double evaluationsPerSecond = 0.0; // over the last seconds of the run
    int generating = 0;                // policy calls in flight
    int evaluating = 0;                // evaluations in flight
    QStringList devices;               // the GPUs judging this run; empty on the CPU backend

    double spent() const { return usageOnAxis(used, axis); }
    // 0..1 on the run's axis
    double fraction() const { return budget > 0 ? std::min(1.0, spent() / budget) : 0.0; }
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::RunProgress)
