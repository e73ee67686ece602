// RunStore's optimisation memory: the memory table, one lesson per improved child.
#include "runstore.h"
#include "runstorequeries.h"

#include <sqlite3.h>

namespace kiln {

namespace {

const char *const memoryColumns =
    "SELECT id, task, backend, shape, run_id, parent_id, child_id, idea, diff, speedup_before, "
    "speedup_after, ms_before, ms_after, edited, created_at FROM memory ";

MemoryEntry memoryFromRow(const SqliteStatement &s)
{
    MemoryEntry e;
    s.columns(0, e.id, e.task, e.backend, e.shape, e.runId, e.parentId, e.childId, e.idea, e.diff,
              e.speedupBefore, e.speedupAfter, e.msBefore, e.msAfter, e.edited, e.createdAt);
    return e;
}

} // namespace

qint64 RunStore::addMemoryEntry(MemoryEntry &entry)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addMemoryEntry"))
        return 0;
    if (entry.task.isEmpty() || entry.idea.trimmed().isEmpty()) {
        setError(QStringLiteral("addMemoryEntry"),
                 QStringLiteral("a lesson needs a task and an idea"));
        return 0;
    }
    const QDateTime created =
        entry.createdAt.isValid() ? entry.createdAt : QDateTime::currentDateTimeUtc();
    SqliteStatement s(m_db, "INSERT OR IGNORE INTO memory (task, backend, shape, run_id, "
                            "parent_id, child_id, idea, diff, speedup_before, speedup_after, "
                            "ms_before, ms_after, edited, created_at, updated_at) VALUES (?1, ?2, "
                            "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14)");
    s.bindAll(entry.task, entry.backend, entry.shape, entry.runId, entry.parentId, entry.childId,
              entry.idea.trimmed(), entry.diff, entry.speedupBefore, entry.speedupAfter,
              entry.msBefore, entry.msAfter, entry.edited, created);
    m_lastError.clear();
    if (!s.exec()) {
        setError(QStringLiteral("addMemoryEntry"), s.error());
        return 0;
    }
    if (sqlite3_changes(m_db) == 0)
        return 0; // this child's lesson is already there
    entry.id = sqlite3_last_insert_rowid(m_db);
    entry.createdAt = created;
    return entry.id;
}

std::optional<MemoryEntry> RunStore::memoryEntry(qint64 id)
{
    return selectOne<MemoryEntry>("memoryEntry", QByteArray(memoryColumns) + "WHERE id = ?1",
                                  memoryFromRow, id);
}

QList<MemoryEntry> RunStore::memoryEntries(const QString &task)
{
    return selectAll<MemoryEntry>(
        "memoryEntries",
        QByteArray(memoryColumns) + "WHERE ?1 = '' OR task = ?1 ORDER BY created_at DESC, id DESC",
        memoryFromRow, task);
}

bool RunStore::updateMemoryIdea(qint64 id, const QString &idea)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("updateMemoryIdea"))
        return false;
    if (idea.trimmed().isEmpty())
        return setError(QStringLiteral("updateMemoryIdea"), QStringLiteral("the idea is empty"));
    SqliteStatement s(m_db,
                      "UPDATE memory SET idea = ?2, edited = 1, updated_at = ?3 WHERE id = ?1");
    s.bindAll(id, idea.trimmed(), QDateTime::currentMSecsSinceEpoch());
    if (!s.exec())
        return setError(QStringLiteral("updateMemoryIdea"), s.error());
    return sqlite3_changes(m_db) > 0 || setError(QStringLiteral("updateMemoryIdea"),
                                                 QStringLiteral("no memory entry %1").arg(id));
}

bool RunStore::deleteMemoryEntry(qint64 id)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("deleteMemoryEntry"))
        return false;
    SqliteStatement s(m_db, "DELETE FROM memory WHERE id = ?1");
    s.bind(1, id);
    if (!s.exec())
        return setError(QStringLiteral("deleteMemoryEntry"), s.error());
    return sqlite3_changes(m_db) > 0 || setError(QStringLiteral("deleteMemoryEntry"),
                                                 QStringLiteral("no memory entry %1").arg(id));
}

qint64 RunStore::clearMemory(const QString &task)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("clearMemory"))
        return -1;
    SqliteStatement s(m_db, "DELETE FROM memory WHERE ?1 = '' OR task = ?1");
    s.bind(1, task);
    if (!s.exec()) {
        setError(QStringLiteral("clearMemory"), s.error());
        return -1;
    }
    return sqlite3_changes(m_db);
}

} // namespace kiln
