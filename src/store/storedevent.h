#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <optional>

namespace kiln {

// One row of a run's append-only event log: every state change, in order, so that a run can be
// resumed after a crash and its growth replayed.
struct StoredEvent
{
    qint64 id = 0; // strictly increasing across the whole database
    qint64 runId = 0;
    QDateTime timestamp; // UTC, millisecond resolution
    QString kind;        // "run_created", "candidate_added", "candidate_evaluated", ...
    std::optional<qint64> candidateId;
    QJsonObject payload;
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::StoredEvent)
