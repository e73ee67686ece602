#pragma once

#include "core/candidatesummary.h"
#include "store/storedevent.h"

#include <QDateTime>
#include <QHash>
#include <QList>

namespace kiln {

class RunStore;

// How a run grew, step by step, from its event log: the steps are the events that change the
// tree (a candidate added, a verdict, an eviction), and rowsAt(k) is the run as it stood after
// the first k of them: the candidates added so far, in order, pending until their verdict was
// logged, ghosts once evicted. The growth replay of the window draws these states.
class GrowthTimeline
{
public:
    GrowthTimeline() = default;
    // `events` in log order; `final` the run's summaries now (its lineage).
    GrowthTimeline(const QList<StoredEvent> &events, const QList<CandidateSummary> &final);
    static GrowthTimeline read(RunStore &store, qint64 runId);
    // count() of the timeline read() would give, without reading it.
    static int countSteps(RunStore &store, qint64 runId);
    static const QStringList &stepKinds(); // the event kinds that are steps

    int count() const { return int(m_steps.size()); }
    QList<CandidateSummary> rowsAt(int step) const;
    // When step k (1-based) was logged; the run's first step time for 0.
    QDateTime timeAt(int step) const;

private:
    struct Step
    {
        enum class Kind
        {
            Added,
            Evaluated,
            Evicted
        };
        Kind kind;
        qint64 candidateId = 0;
        QList<qint64> evicted;
        QDateTime at;
    };
    QList<Step> m_steps;
    QHash<qint64, CandidateSummary> m_final;
};

} // namespace kiln
