#include "models/rules/runtoopen.h"

#include <QObject>
#include <algorithm>

namespace kiln {

RunToOpen RunToOpen::choose(const QList<RunRecord> &runs, std::optional<qint64> requested,
                            const QString &database)
{
    RunToOpen choice;
    if (requested) {
        for (const RunRecord &r : runs)
            choice.runId = r.id == *requested ? r.id : choice.runId;
        if (!choice.runId)
            choice.refusal = QObject::tr("no run %1 in %2").arg(*requested).arg(database);
        return choice;
    }
    for (const RunRecord &r : runs) {
        if (r.kind == QStringLiteral("search") && r.id > choice.runId)
            choice.runId = r.id;
    }
    if (!choice.runId) {
        for (const RunRecord &r : runs)
            choice.runId = std::max(choice.runId, r.id);
    }
    return choice;
}

} // namespace kiln
