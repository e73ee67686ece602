#include "rundelta.h"

#include "store/runstore.h"

#include <QJsonArray>
#include <QSet>

namespace kiln {

RunDelta RunDelta::read(RunStore &store, qint64 runId, qint64 afterEvent)
{
    RunDelta delta;
    delta.runId = runId;
    delta.lastEvent = afterEvent;
    store.transaction([&] {
        QList<qint64> named;
        QSet<qint64> seen;
        bool runChanged = false;
        for (const StoredEvent &event : store.events(runId, afterEvent)) {
            delta.lastEvent = std::max(delta.lastEvent, event.id);
            if (event.kind == QLatin1String("candidate_added") ||
                event.kind == QLatin1String("candidate_evaluated")) {
                if (event.candidateId && !seen.contains(*event.candidateId)) {
                    seen.insert(*event.candidateId);
                    named.append(*event.candidateId);
                }
            } else if (event.kind == QLatin1String("evicted")) {
                for (const QJsonValue &id : event.payload.value(QStringLiteral("ids")).toArray())
                    delta.evicted.append(id.toInteger());
            } else {
                runChanged = true;
            }
        }
        if (!named.isEmpty())
            delta.candidates = store.lineage(runId, named);
        if (runChanged)
            delta.run = store.run(runId);
        return true;
    });
    return delta;
}

} // namespace kiln
