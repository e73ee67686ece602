#include "engine/reports/trajectorylog.h"

#include "policies/feedbacksummary.h"

#include <QStringList>
#include <algorithm>

namespace kiln {

namespace {

QString outcome(const EvaluationResult *e)
{
    if (!e)
        return QStringLiteral("not evaluated");
    if (e->verdict == Verdict::Pass && e->speedup)
        return QStringLiteral("pass, %1x the baseline").arg(*e->speedup, 0, 'f', 2);
    // A policy reads this: a failure on hidden inputs is named, not described.
    const QString summary = FeedbackSummary::policySummary(*e);
    return summary.isEmpty() ? verdictName(e->verdict)
                             : verdictName(e->verdict) + QStringLiteral(": ") + summary;
}

} // namespace

QString TrajectoryLog::text(qint64 candidateId, const QHash<qint64, CandidateRecord> &candidates,
                            const QHash<qint64, EvaluationResult> &evaluations)
{
    const auto self = candidates.constFind(candidateId);
    if (self == candidates.cend())
        return QStringLiteral("(this is the first round)");
    QList<const CandidateRecord *> rounds;
    for (const CandidateRecord &c : candidates)
        if (c.runId == self->runId && c.task == self->task && c.island == self->island)
            rounds.append(&c);
    std::sort(rounds.begin(), rounds.end(), [](const CandidateRecord *a, const CandidateRecord *b) {
        return a->sampleIndex != b->sampleIndex ? a->sampleIndex < b->sampleIndex : a->id < b->id;
    });
    if (rounds.size() > kRounds)
        rounds = rounds.mid(rounds.size() - kRounds);
    QStringList lines;
    for (const CandidateRecord *c : std::as_const(rounds)) {
        const auto e = evaluations.constFind(c->id);
        const QString plan = c->policyMeta.value(QStringLiteral("agent_plan")).toString();
        QString firstLine = plan.section(QLatin1Char('\n'), 0, 0).trimmed();
        if (firstLine.isEmpty())
            firstLine = c->operation == Operation::Sample ? QStringLiteral("a first version")
                                                          : operationName(c->operation);
        lines << QStringLiteral("- candidate #%1 (%2): %3 -> %4")
                     .arg(c->id)
                     .arg(operationName(c->operation), firstLine,
                          outcome(e == evaluations.cend() ? nullptr : &e.value()));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace kiln
