// RunStore's optimisation-memory methods, apart from the run and candidate ones.
#include "runstore.h"

#include "sqlitestatement.h"

#include <QMutexLocker>
#include <sqlite3.h>

namespace kiln {

namespace {

const char *const memoryColumns =
    "SELECT id, task, backend, shape, run_id, parent_id, child_id, idea, diff, speedup_before, "
    "speedup_after, ms_before, ms_after, edited, created_at FROM memory ";

MemoryEntry memoryFromRow(const SqliteStatement &s)
{
    MemoryEntry e;
    e.id = s.int64(0);
    e.task = s.text(1);
    e.backend = s.text(2);
    e.shape = s.text(3);
    e.runId = s.optionalInt64(4);
    e.parentId = s.optionalInt64(5);
    e.childId = s.optionalInt64(6);
    e.idea = s.text(7);
    e.diff = s.text(8);
    e.speedupBefore = s.real(9);
    e.speedupAfter = s.real(10);
    e.msBefore = s.optionalReal(11);
    e.msAfter = s.optionalReal(12);
    e.edited = s.int64(13) != 0;
    e.createdAt = QDateTime::fromMSecsSinceEpoch(s.int64(14), Qt::UTC);
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
    s.bind(1, entry.task);
    s.bind(2, entry.backend);
    s.bind(3, entry.shape);
    s.bind(4, entry.runId);
    s.bind(5, entry.parentId);
    s.bind(6, entry.childId);
    s.bind(7, entry.idea.trimmed());
    s.bind(8, entry.diff);
    s.bind(9, entry.speedupBefore);
    s.bind(10, entry.speedupAfter);
    s.bind(11, entry.msBefore);
    s.bind(12, entry.msAfter);
    s.bind(13, entry.edited);
    s.bind(14, created.toMSecsSinceEpoch());
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
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, QByteArray(memoryColumns) + "WHERE id = ?1");
    s.bind(1, id);
    if (s.next())
        return memoryFromRow(s);
    if (!s.ok())
        setError(QStringLiteral("memoryEntry"), s.error());
    return std::nullopt;
}

QList<MemoryEntry> RunStore::memoryEntries(const QString &task)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, QByteArray(memoryColumns) +
                                "WHERE ?1 = '' OR task = ?1 ORDER BY created_at DESC, id DESC");
    s.bind(1, task);
    QList<MemoryEntry> entries;
    while (s.next())
        entries.append(memoryFromRow(s));
    if (!s.ok()) {
        setError(QStringLiteral("memoryEntries"), s.error());
        entries.clear();
    }
    return entries;
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
    s.bind(1, id);
    s.bind(2, idea.trimmed());
    s.bind(3, QDateTime::currentMSecsSinceEpoch());
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
