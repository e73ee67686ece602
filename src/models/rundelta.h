#pragma once

#include "core/candidatesummary.h"
#include "core/runrecord.h"

#include <QList>
#include <QMetaType>
#include <optional>

namespace kiln {

class RunStore;

// What changed in one run: candidates that appeared or got a verdict (as their light summaries),
// candidates evicted from a population, and the run record when its status or budget moved.
// Made from the event log by read() (a run another process is making) or from a live
// controller's signals (a run this process is making); RunDocument applies either the same way.
struct RunDelta
{
    qint64 runId = 0;
    qint64 lastEvent = 0; // the log cursor after this delta; 0 when not read from the log
    QList<CandidateSummary> candidates;
    QList<qint64> evicted;
    std::optional<RunRecord> run;

    bool isEmpty() const { return candidates.isEmpty() && evicted.isEmpty() && !run; }
    // Everything logged after afterEvent, in one snapshot and a fixed number of queries (never
    // one per event): the events, then the lineage rows of the candidates they name.
    static RunDelta read(RunStore &store, qint64 runId, qint64 afterEvent);
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::RunDelta)
