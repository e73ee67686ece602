#include "budgetusage.h"

namespace kiln {

BudgetUsage &BudgetUsage::operator+=(const BudgetUsage &other)
{
    samples += other.samples;
    promptTokens += other.promptTokens;
    completionTokens += other.completionTokens;
    reasoningTokens += other.reasoningTokens;
    evals += other.evals;
    deviceSeconds += other.deviceSeconds;
    wallSeconds += other.wallSeconds;
    cost += other.cost;
    return *this;
}

QJsonObject BudgetUsage::toJson() const
{
    return {{QStringLiteral("samples"), double(samples)},
            {QStringLiteral("prompt_tokens"), double(promptTokens)},
            {QStringLiteral("completion_tokens"), double(completionTokens)},
            {QStringLiteral("reasoning_tokens"), double(reasoningTokens)},
            {QStringLiteral("evals"), double(evals)},
            {QStringLiteral("device_seconds"), deviceSeconds},
            {QStringLiteral("wall_seconds"), wallSeconds},
            {QStringLiteral("cost"), cost}};
}

BudgetUsage BudgetUsage::fromJson(const QJsonObject &o)
{
    BudgetUsage u;
    u.samples = qint64(o.value(QStringLiteral("samples")).toDouble());
    u.promptTokens = qint64(o.value(QStringLiteral("prompt_tokens")).toDouble());
    u.completionTokens = qint64(o.value(QStringLiteral("completion_tokens")).toDouble());
    u.reasoningTokens = qint64(o.value(QStringLiteral("reasoning_tokens")).toDouble());
    u.evals = qint64(o.value(QStringLiteral("evals")).toDouble());
    u.deviceSeconds = o.value(QStringLiteral("device_seconds")).toDouble();
    u.wallSeconds = o.value(QStringLiteral("wall_seconds")).toDouble();
    u.cost = o.value(QStringLiteral("cost")).toDouble();
    return u;
}

} // namespace kiln
