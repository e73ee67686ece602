#include "growthtimeline.h"

#include "store/runstore.h"

#include <QJsonArray>
#include <QSet>

namespace kiln {

namespace {

CandidateSummary pending(CandidateSummary summary)
{
    summary.evaluated = false;
    summary.verdict = Verdict::Crash;
    summary.correct = false;
    summary.speedup.reset();
    summary.candidateMs.reset();
    summary.evaluationMs = 0.0;
    summary.flagIds.clear();
    summary.firstFlag.clear();
    summary.summary.clear();
    summary.ghost = false;
    return summary;
}

} // namespace

GrowthTimeline::GrowthTimeline(const QList<StoredEvent> &events,
                               const QList<CandidateSummary> &final)
{
    for (const CandidateSummary &c : final)
        if (!c.placeholder)
            m_final.insert(c.id, c);
    for (const StoredEvent &event : events) {
        Step step;
        step.at = event.timestamp;
        if (event.kind == QLatin1String("candidate_added") && event.candidateId) {
            step.kind = Step::Kind::Added;
            step.candidateId = *event.candidateId;
        } else if (event.kind == QLatin1String("candidate_evaluated") && event.candidateId) {
            step.kind = Step::Kind::Evaluated;
            step.candidateId = *event.candidateId;
        } else if (event.kind == QLatin1String("evicted")) {
            step.kind = Step::Kind::Evicted;
            for (const QJsonValue &id : event.payload.value(QStringLiteral("ids")).toArray())
                step.evicted.append(id.toInteger());
        } else {
            continue; // run state, rounds: nothing the tree shows
        }
        m_steps.append(step);
    }
}

GrowthTimeline GrowthTimeline::read(RunStore &store, qint64 runId)
{
    GrowthTimeline timeline;
    store.transaction([&] {
        timeline = GrowthTimeline(store.events(runId), store.lineage(runId));
        return true;
    });
    return timeline;
}

const QStringList &GrowthTimeline::stepKinds()
{
    static const QStringList kinds{QStringLiteral("candidate_added"),
                                   QStringLiteral("candidate_evaluated"),
                                   QStringLiteral("evicted")};
    return kinds;
}

int GrowthTimeline::countSteps(RunStore &store, qint64 runId)
{
    return int(store.eventCount(runId, stepKinds()));
}

QList<CandidateSummary> GrowthTimeline::rowsAt(int step) const
{
    QList<CandidateSummary> rows;
    QHash<qint64, int> rowOf;
    for (int i = 0; i < std::min(step, count()); ++i) {
        const Step &s = m_steps[i];
        const auto final = m_final.constFind(s.candidateId);
        if (s.kind == Step::Kind::Added && final != m_final.cend() &&
            !rowOf.contains(s.candidateId)) {
            rowOf.insert(s.candidateId, int(rows.size()));
            rows.append(pending(*final));
        } else if (s.kind == Step::Kind::Evaluated && rowOf.contains(s.candidateId)) {
            CandidateSummary &row = rows[rowOf[s.candidateId]];
            const bool ghost = row.ghost;
            row = *final; // the verdict (a later re-evaluation shows its own verdict here)
            row.ghost = ghost;
        } else if (s.kind == Step::Kind::Evicted) {
            for (qint64 id : s.evicted)
                if (rowOf.contains(id))
                    rows[rowOf[id]].ghost = true;
        }
    }
    return rows;
}

QDateTime GrowthTimeline::timeAt(int step) const
{
    if (m_steps.isEmpty())
        return {};
    return m_steps[std::clamp(step, 1, count()) - 1].at;
}

} // namespace kiln
