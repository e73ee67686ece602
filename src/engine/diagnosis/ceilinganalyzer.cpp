#include "engine/diagnosis/ceilinganalyzer.h"

namespace kiln {

// The best against what the machine allows: its roofline fraction (its time's floor from the
// bytes and flops of the task over the measured bandwidth and peak, over its time). Near 1 the
// search has little left to find whatever it spends; the vendor library's speed is beside it
// where the backend timed one. In a suite, the task nearest its ceiling is judged.
DiagnosisFinding CeilingAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("ceiling"), QStringLiteral("Ceiling")};
    // In a suite, the task nearest its ceiling: the one further search can help least.
    const CandidateSummary *best = nullptr;
    QString task;
    double fraction = 0.0;
    bool passed = false;
    for (const QString &t : history.tasks()) {
        passed = passed || history.best(t);
        const double of = history.bestFacts.value(t).rooflineFraction.value_or(0.0);
        if (history.best(t) && of > fraction)
            best = history.best(t), task = t, fraction = of;
    }
    if (!best) {
        f.finding = passed ? QStringLiteral("No roofline was recorded for the best.")
                           : QStringLiteral("Nothing has passed.");
        return f;
    }
    f.candidates = {best->id};
    f.rounds = history.roundsOf(f.candidates);
    f.rating = DiagnosisFinding::rate(fraction, kThresholds);
    f.finding = QStringLiteral("The best%1 (candidate %2) runs at %3% of the roofline: at most "
                               "%4x more is there to find.")
                    .arg(history.onTask(task))
                    .arg(best->id)
                    .arg(100.0 * fraction, 0, 'f', 0)
                    .arg(1.0 / fraction, 0, 'f', 1);
    const std::optional<double> library = history.bestFacts.value(task).librarySpeedup;
    if (library)
        f.finding +=
            QStringLiteral(" Against the vendor library it is %1x.").arg(*library, 0, 'f', 2);
    f.figures.insert(QStringLiteral("roofline_fraction"), fraction);
    f.figures.insert(QStringLiteral("headroom"), 1.0 / fraction);
    if (history.isSuite())
        f.figures.insert(QStringLiteral("task"), task);
    if (library)
        f.figures.insert(QStringLiteral("speedup_vs_library"), *library);
    return f;
}

} // namespace kiln
