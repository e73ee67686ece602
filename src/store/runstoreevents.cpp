// RunStore's event log: the append-only events table.
#include "runstore.h"
#include "runstorequeries.h"

#include <sqlite3.h>

namespace kiln {

namespace {

StoredEvent eventFromRow(const SqliteStatement &s)
{
    StoredEvent e;
    s.columns(0, e.id, e.runId, e.timestamp, e.kind, e.candidateId, e.payload);
    return e;
}

} // namespace

qint64 RunStore::insertEvent(qint64 runId, const QString &kind, std::optional<qint64> candidateId,
                             const QJsonObject &payload)
{
    SqliteStatement s(m_db, "INSERT INTO events (run_id, ts, kind, candidate_id, payload_json) "
                            "VALUES (?1, ?2, ?3, ?4, ?5)");
    s.bindAll(runId, QDateTime::currentMSecsSinceEpoch(), kind, candidateId, payload);
    if (!s.exec()) {
        setError(QStringLiteral("event \"%1\"").arg(kind), s.error());
        return 0;
    }
    return sqlite3_last_insert_rowid(m_db);
}

qint64 RunStore::appendEvent(qint64 runId, const QString &kind, std::optional<qint64> candidateId,
                             const QJsonObject &payload)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("appendEvent"))
        return 0;
    return insertEvent(runId, kind, candidateId, payload);
}

QList<StoredEvent> RunStore::events(qint64 runId, qint64 afterId)
{
    return events(runId, afterId, QString());
}

QList<StoredEvent> RunStore::events(qint64 runId, qint64 afterId, const QString &kind)
{
    // An empty kind binds NULL: every kind.
    const std::optional<QString> only = kind.isEmpty() ? std::nullopt : std::optional(kind);
    return selectAll<StoredEvent>(
        "events",
        "SELECT id, run_id, ts, kind, candidate_id, payload_json FROM events "
        "WHERE run_id = ?1 AND id > ?2 AND (?3 IS NULL OR kind = ?3) "
        "ORDER BY id",
        eventFromRow, runId, afterId, only);
}

qint64 RunStore::eventCount(qint64 runId, const QStringList &kinds)
{
    QMutexLocker lock(&m_mutex);
    clearErrorOutsideTransaction();
    qint64 total = 0;
    for (const QString &kind : kinds) {
        SqliteStatement s(m_db, "SELECT count(*) FROM events WHERE run_id = ?1 AND kind = ?2");
        s.bindAll(runId, kind);
        if (s.next())
            total += s.int64(0);
        else if (!s.ok())
            setError(QStringLiteral("eventCount"), s.error());
    }
    return total;
}

qint64 RunStore::lastEventId(qint64 runId)
{
    return selectValue<qint64>("lastEventId",
                               "SELECT coalesce(max(id), 0) FROM events WHERE run_id = ?1", runId);
}

} // namespace kiln
