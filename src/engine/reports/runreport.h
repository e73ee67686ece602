#pragma once

#include "core/speedupinterval.h"

#include <QJsonObject>

namespace kiln {

class RunStore;

// The per-run document of `kiln-cli report` (cli.md): counts, best, verdicts, budget, the
// best-speedup curve against every compute axis, and coverage metrics (pass@k, fast_p@k,
// speedup vs reasoning length). Derived from the store alone, so it works on any database.
class RunReport
{
public:
    static QJsonObject runJson(RunStore &store, qint64 runId);
    // The `run` / `resume` document: run_id, best, candidates, verdicts, budget_used.
    static QJsonObject resultJson(RunStore &store, qint64 runId);
    // Curve points, one per candidate in creation order.
    static QJsonArray curve(RunStore &store, qint64 runId);
    // "candidate 28 at 2.31x ± 0.04, confirmed" from a "best" object of resultJson/runJson;
    // "no correct candidate" when there is none.
    static QString bestText(const QJsonObject &best);
    // The best's interval from the same object (speedup_low/high), empty when it has none.
    static std::optional<SpeedupInterval> bestInterval(const QJsonObject &best);
};

} // namespace kiln
