#include "strategycomparison.h"

#include "plotdata.h"

#include <algorithm>

namespace kiln {

ComputeAxis StrategyComparison::axisFor(BudgetAxis axis)
{
    switch (axis) {
    case BudgetAxis::Evals:
        return ComputeAxis::Evaluations;
    case BudgetAxis::Samples:
        return ComputeAxis::Samples;
    case BudgetAxis::Tokens:
        return ComputeAxis::AllTokens;
    case BudgetAxis::Seconds:
        return ComputeAxis::WallSeconds;
    case BudgetAxis::DeviceSeconds:
        return ComputeAxis::DeviceSeconds;
    case BudgetAxis::Cost:
        return ComputeAxis::Cost;
    }
    return ComputeAxis::Evaluations;
}

QList<StrategyComparison::Row> StrategyComparison::rows(const QList<PlotRun> &runs,
                                                        ComputeAxis axis, double budget)
{
    QList<Row> rows;
    for (const QList<int> &group : PlotData::seedGroups(runs)) {
        Row row;
        row.strategy = runs[group.first()].run.strategy;
        row.seeds = int(group.size());
        QList<StepCurve> curves;
        for (int index : group)
            curves.append(PlotData::bestSpeedup(runs[index], axis));
        for (size_t f = 0; f < kFractions.size(); ++f) {
            QVector<double> values;
            for (const StepCurve &c : curves)
                values.append(c.valueAt(kFractions[f] * budget));
            std::sort(values.begin(), values.end());
            row.median[f] = PlotData::quantile(values, 0.5);
            row.low[f] = values.first();
            row.high[f] = values.last();
        }
        rows.append(row);
    }
    return rows;
}

} // namespace kiln
