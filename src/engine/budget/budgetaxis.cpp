#include "engine/budget/budgetaxis.h"

namespace kiln {

QString budgetAxisName(BudgetAxis axis)
{
    switch (axis) {
    case BudgetAxis::Evals:
        return QStringLiteral("evals");
    case BudgetAxis::Samples:
        return QStringLiteral("samples");
    case BudgetAxis::Tokens:
        return QStringLiteral("tokens");
    case BudgetAxis::Seconds:
        return QStringLiteral("seconds");
    case BudgetAxis::DeviceSeconds:
        return QStringLiteral("device_seconds");
    case BudgetAxis::Cost:
        return QStringLiteral("cost");
    }
    return {};
}

std::optional<BudgetAxis> budgetAxisFromName(const QString &name)
{
    for (BudgetAxis axis : {BudgetAxis::Evals, BudgetAxis::Samples, BudgetAxis::Tokens,
                            BudgetAxis::Seconds, BudgetAxis::DeviceSeconds, BudgetAxis::Cost}) {
        if (budgetAxisName(axis) == name)
            return axis;
    }
    return std::nullopt;
}

bool isCountAxis(BudgetAxis axis)
{
    return axis == BudgetAxis::Evals || axis == BudgetAxis::Samples;
}

double usageOnAxis(const BudgetUsage &usage, BudgetAxis axis)
{
    switch (axis) {
    case BudgetAxis::Evals:
        return double(usage.evals);
    case BudgetAxis::Samples:
        return double(usage.samples);
    case BudgetAxis::Tokens:
        return double(usage.totalTokens());
    case BudgetAxis::Seconds:
        return usage.wallSeconds;
    case BudgetAxis::DeviceSeconds:
        return usage.deviceSeconds;
    case BudgetAxis::Cost:
        return usage.cost;
    }
    return 0.0;
}

} // namespace kiln
