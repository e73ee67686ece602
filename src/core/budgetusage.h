#pragma once

#include <QJsonObject>

namespace kiln {

// Compute spent on every axis a budget or a plot can use.
struct BudgetUsage
{
    qint64 samples = 0;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 reasoningTokens = 0;
    qint64 evals = 0;
    double deviceSeconds = 0.0;
    double wallSeconds = 0.0;
    double cost = 0.0;

    qint64 totalTokens() const { return promptTokens + completionTokens + reasoningTokens; }
    BudgetUsage &operator+=(const BudgetUsage &other);

    QJsonObject toJson() const; // the "budget_used" object of cli.md
    static BudgetUsage fromJson(const QJsonObject &object);
};

} // namespace kiln
