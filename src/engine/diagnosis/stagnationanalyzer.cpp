#include "engine/diagnosis/stagnationanalyzer.h"

namespace kiln {

namespace {

// What "the budget" means for the share: the run's own budget where it counts evaluations or
// samples, else the evaluations made so far.
double budgetInEvaluations(const RunHistory &history)
{
    const bool counted = history.budgetAxis == QLatin1String("evals") ||
                         history.budgetAxis == QLatin1String("samples");
    return counted && history.budget > 0
               ? std::max<double>(history.budget, history.evaluatedCount())
               : history.evaluatedCount();
}

} // namespace

// Evaluations since a best last rose (any task's, in a suite: progress on one task is progress),
// as a share of the budget.
DiagnosisFinding StagnationAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("stagnation"), QStringLiteral("Stagnation")};
    const int n = history.evaluatedCount();
    if (n == 0) {
        f.finding = QStringLiteral("Nothing has been evaluated yet.");
        return f;
    }
    const double budget = budgetInEvaluations(history);
    const int since =
        history.improvements().isEmpty() ? n : n - 1 - history.improvements().constLast().position;
    const double share = since / budget;
    f.rating = DiagnosisFinding::rate(share, kThresholds);
    const QString of = budget > n ? QStringLiteral("the budget of %1 evaluations").arg(budget)
                                  : QStringLiteral("the %1 evaluations so far").arg(n);
    if (!history.improvements().isEmpty()) {
        const RunHistory::Improvement &last = history.improvements().constLast();
        f.finding = (history.isSuite()
                         ? QStringLiteral("The last raise of a task's best (candidate %1%2, %3x) "
                                          "was %4 evaluations ago: %5% of %6.")
                         : QStringLiteral("The best (candidate %1%2, %3x) last rose %4 "
                                          "evaluations ago: %5% of %6."))
                        .arg(last.candidate)
                        .arg(history.onTask(last.task))
                        .arg(last.to, 0, 'f', 2)
                        .arg(since)
                        .arg(100.0 * share, 0, 'f', 0)
                        .arg(of);
        f.candidates = {last.candidate};
        f.rounds = history.roundsOf(f.candidates);
        const int lastRound = history.evaluated(n - 1).round;
        const int raisedIn = history.evaluated(last.position).round;
        f.figures.insert(QStringLiteral("rounds_since"),
                         raisedIn >= 0 && lastRound >= 0 ? lastRound - raisedIn : -1);
    } else {
        f.finding = QStringLiteral("Nothing has passed in %1 evaluations: %2% of %3.")
                        .arg(n)
                        .arg(100.0 * share, 0, 'f', 0)
                        .arg(of);
    }
    f.figures.insert(QStringLiteral("evaluations_since"), since);
    f.figures.insert(QStringLiteral("share_of_budget"), share);
    f.figures.insert(QStringLiteral("budget_evaluations"), budget);
    return f;
}

} // namespace kiln
