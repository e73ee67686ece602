#pragma once

#include "core/runrecord.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// The run the window opens with a database (`kiln --db FILE [--run ID]`, or File ▸ Open): the
// one asked for, which must be there, else the most recent search run, else (an evaluation-only
// database) the most recent run of any kind.
struct RunToOpen
{
    qint64 runId = 0; // 0: the database has no runs (or the one asked for is missing)
    QString refusal;  // the run asked for is not in the database

    static RunToOpen choose(const QList<RunRecord> &runs, std::optional<qint64> requested,
                            const QString &database);
};

} // namespace kiln
