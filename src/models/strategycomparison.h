#pragma once

#include "computeaxis.h"
#include "plotrun.h"

#include "engine/budget/budgetaxis.h"

#include <QList>
#include <QString>
#include <array>

namespace kiln {

// The table under the compare view: for each strategy (its seeds grouped), the best verified
// speedup after a quarter, half and all of the budget, as the median over seeds with their
// range.
class StrategyComparison
{
public:
    static constexpr std::array<double, 3> kFractions{0.25, 0.5, 1.0};
    struct Row
    {
        QString strategy;
        int seeds = 0;
        std::array<double, 3> median{};
        std::array<double, 3> low{};
        std::array<double, 3> high{};
    };

    // The plot axis that measures a budget axis.
    static ComputeAxis axisFor(BudgetAxis axis);
    // One row per seed group of `runs`, in order of first appearance.
    static QList<Row> rows(const QList<PlotRun> &runs, ComputeAxis axis, double budget);
};

} // namespace kiln
