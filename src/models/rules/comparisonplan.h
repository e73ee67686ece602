#pragma once

#include "core/runrecord.h"
#include "engine/budget/budgetaxis.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// The equal-budget comparison (`kiln --compare`): one run per strategy and seed, each the
// `kiln-cli run` words of one slot, in the comparison's order (strategy, then seed). The curves
// and the table follow that order, whatever order the queued runs start in.
struct ComparisonPlan
{
    QString task;
    QStringList strategies;
    double budget = 24;
    QString budgetAxis = QStringLiteral("evals");
    int seeds = 3;
    QString database; // empty: the open workspace, else kiln.db

    // What the compare dialog proposes: the shown run's first task (`shown` nullptr: none).
    static ComparisonPlan proposedFor(const RunRecord *shown);

    // Why it cannot start; empty when it can.
    QString problem() const;
    std::optional<BudgetAxis> axis() const { return budgetAxisFromName(budgetAxis); }
    qsizetype runCount() const { return strategies.size() * seeds; }
    // The words after `kiln-cli run` for one strategy and seed (seeds count from 1).
    QStringList arguments(const QString &strategy, int seed) const;
    // The runs started so far, in slot order (a slot holds 0 until its run starts).
    static QList<qint64> startedRuns(const QList<qint64> &runSlots);

    QString queuedMessage(qsizetype queued) const;
    // Fewer runs started than planned; `error` says why the next one did not.
    QString shortfallMessage(qsizetype started, const QString &error) const;
};

} // namespace kiln
