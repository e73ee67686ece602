#include "trajectorylog.h"

#include <QStringList>

namespace kiln {

namespace {

QString outcome(const EvaluationResult *e)
{
    if (!e)
        return QStringLiteral("not evaluated");
    if (e->verdict == Verdict::Pass && e->speedup)
        return QStringLiteral("pass, %1x the baseline").arg(*e->speedup, 0, 'f', 2);
    return e->summary.isEmpty() ? verdictName(e->verdict)
                                : verdictName(e->verdict) + QStringLiteral(": ") + e->summary;
}

} // namespace

QString TrajectoryLog::text(qint64 candidateId, const QHash<qint64, CandidateRecord> &candidates,
                            const QHash<qint64, EvaluationResult> &evaluations)
{
    QStringList lines;
    qint64 id = candidateId;
    for (int k = 0; k < kRounds && candidates.contains(id); ++k) {
        const CandidateRecord &c = candidates.value(id);
        const auto e = evaluations.constFind(id);
        const QString plan = c.policyMeta.value(QStringLiteral("agent_plan")).toString();
        QString firstLine = plan.section(QLatin1Char('\n'), 0, 0).trimmed();
        if (firstLine.isEmpty())
            firstLine = c.operation == Operation::Sample ? QStringLiteral("a first version")
                                                         : operationName(c.operation);
        lines.prepend(QStringLiteral("- candidate #%1 (%2): %3 -> %4")
                          .arg(c.id)
                          .arg(operationName(c.operation), firstLine,
                               outcome(e == evaluations.cend() ? nullptr : &e.value())));
        if (!c.parent)
            break;
        id = *c.parent;
    }
    return lines.isEmpty() ? QStringLiteral("(this is the first round)")
                           : lines.join(QLatin1Char('\n'));
}

} // namespace kiln
