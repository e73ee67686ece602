#include "engine/diagnosis/evaluatornoiseanalyzer.h"

namespace kiln {

namespace {

constexpr int kEvidence = 50;

// One task's best against its runner-up.
struct Lead
{
    QString task;
    const CandidateSummary *best = nullptr;
    double halfWidth = 0.0;
    double runnerUp = 1.0; // the reference's 1x when nothing else of the task passed
    qint64 runnerUpId = 0;
    double lead = 0.0;
    double share = 0.0; // half-width over lead
    int overlapping = 0;
    QList<qint64> evidence; // the best, then who reaches it
};

Lead leadOf(const RunHistory &history, const QString &task)
{
    Lead l{task, history.best(task)};
    if (!l.best || !l.best->speedupLow || !l.best->speedupHigh)
        return l;
    l.halfWidth = (*l.best->speedupHigh - *l.best->speedupLow) / 2.0;
    l.evidence = {l.best->id};
    bool other = false;
    for (int i = 0; i < history.evaluatedCount(); ++i) {
        const CandidateSummary &c = history.evaluated(i);
        if (c.task != task || !c.isBestCandidate() || c.id == l.best->id || c.duplicateOf)
            continue;
        if (!other || *c.speedup > l.runnerUp)
            l.runnerUp = *c.speedup, l.runnerUpId = c.id;
        other = true;
        if (c.speedupHigh.value_or(*c.speedup) >= *l.best->speedupLow) {
            ++l.overlapping;
            if (l.evidence.size() < kEvidence)
                l.evidence.append(c.id);
        }
    }
    l.lead = *l.best->speedup - l.runnerUp;
    l.share = l.lead > 0.0 ? l.halfWidth / l.lead : 99.0;
    return l;
}

} // namespace

// How much of the best's lead is inside its own confidence interval: the interval's half-width
// over the lead on the runner-up (the highest other passing speedup, or the reference's 1x when
// nothing else passed), and the candidates whose intervals reach the best's (the search cannot
// tell them apart). In a suite, the task whose lead is the least sure is judged.
DiagnosisFinding EvaluatorNoiseAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("evaluator_noise"), QStringLiteral("Evaluator noise")};
    Lead worst;
    bool passed = false;
    for (const QString &task : history.tasks()) {
        const Lead l = leadOf(history, task);
        passed = passed || l.best;
        if (!l.evidence.isEmpty() && (!worst.best || l.share > worst.share))
            worst = l;
    }
    if (!worst.best) {
        f.finding = passed ? QStringLiteral("The best has no confidence interval.")
                           : QStringLiteral("Nothing has passed.");
        return f;
    }
    f.candidates = worst.evidence;
    f.rounds = history.roundsOf(f.candidates);
    if (worst.lead <= 0.0 && worst.runnerUpId == 0) {
        f.finding = QStringLiteral("The best%1 (%2x) is not faster than the reference: there is "
                                   "no lead to be sure of.")
                        .arg(history.onTask(worst.task))
                        .arg(*worst.best->speedup, 0, 'f', 2);
        return f;
    }
    f.rating = DiagnosisFinding::rate(worst.share, {0.25, 0.5, 1.0, 2.0});
    const QString against = worst.runnerUpId ? QStringLiteral("candidate %1 (%2x)")
                                                   .arg(worst.runnerUpId)
                                                   .arg(worst.runnerUp, 0, 'f', 2)
                                             : QStringLiteral("the reference (1x)");
    f.finding = QStringLiteral("The best%1 (%2x ± %3) leads %4 by %5: the interval is %6% of the "
                               "lead, and %7 other candidates' intervals reach the best's.")
                    .arg(history.onTask(worst.task))
                    .arg(*worst.best->speedup, 0, 'f', 2)
                    .arg(worst.halfWidth, 0, 'f', 2)
                    .arg(against)
                    .arg(worst.lead, 0, 'f', 2)
                    .arg(100.0 * std::min(worst.share, 99.0), 0, 'f', 0)
                    .arg(worst.overlapping);
    f.figures.insert(QStringLiteral("half_width"), worst.halfWidth);
    f.figures.insert(QStringLiteral("lead"), worst.lead);
    f.figures.insert(QStringLiteral("noise_share_of_lead"), worst.share);
    f.figures.insert(QStringLiteral("overlapping"), worst.overlapping);
    if (history.isSuite())
        f.figures.insert(QStringLiteral("task"), worst.task);
    return f;
}

} // namespace kiln
