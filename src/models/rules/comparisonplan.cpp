#include "models/rules/comparisonplan.h"

#include <QObject>

namespace kiln {

ComparisonPlan ComparisonPlan::proposedFor(const RunRecord *shown)
{
    ComparisonPlan plan;
    if (shown && !shown->tasks.isEmpty())
        plan.task = shown->tasks.first();
    return plan;
}

QString ComparisonPlan::problem() const
{
    if (strategies.isEmpty() || seeds < 1 || !axis())
        return QObject::tr("a comparison needs strategies, seeds and a budget axis");
    return {};
}

QStringList ComparisonPlan::arguments(const QString &strategy, int seed) const
{
    return {QStringLiteral("--task"),        task,
            QStringLiteral("--strategy"),    strategy,
            QStringLiteral("--budget"),      QString::number(budget),
            QStringLiteral("--budget-axis"), budgetAxis,
            QStringLiteral("--seed"),        QString::number(seed)};
}

QList<qint64> ComparisonPlan::startedRuns(const QList<qint64> &runSlots)
{
    QList<qint64> started;
    for (qint64 id : runSlots)
        if (id)
            started.append(id);
    return started;
}

QString ComparisonPlan::queuedMessage(qsizetype queued) const
{
    return QObject::tr("Comparing %1 over %2 seeds each: %3 runs queued")
        .arg(strategies.join(QStringLiteral(", ")))
        .arg(seeds)
        .arg(queued);
}

QString ComparisonPlan::shortfallMessage(qsizetype started, const QString &error) const
{
    return QObject::tr("%1 of %2 runs started: %3").arg(started).arg(runCount()).arg(error);
}

} // namespace kiln
