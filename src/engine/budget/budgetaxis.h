#pragma once

#include "core/budgetusage.h"

#include <QString>
#include <optional>

namespace kiln {

// The compute axes a budget can be set on and a plot can use as its x-axis (cli.md
// --budget-axis). Samples and evals are counts: never overspent, in-flight work included.
enum class BudgetAxis
{
    Evals,
    Samples,
    Tokens,
    Seconds,
    DeviceSeconds,
    Cost
};

QString budgetAxisName(BudgetAxis axis);
std::optional<BudgetAxis> budgetAxisFromName(const QString &name);
bool isCountAxis(BudgetAxis axis);
double usageOnAxis(const BudgetUsage &usage, BudgetAxis axis);

} // namespace kiln
