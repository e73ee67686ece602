// RunStore's runs: the runs table and the tasks of each run (run_tasks).
#include "runstore.h"
#include "runstorequeries.h"

#include <QJsonArray>
#include <sqlite3.h>

namespace kiln {

namespace {

const char *const runColumns =
    "SELECT id, kind, strategy, policy, backend, seed, status, config_json, budget_json, "
    "created_at, updated_at, verifier_secret FROM runs ";

RunRecord runFromRow(const SqliteStatement &s)
{
    RunRecord r;
    s.columns(0, r.id, r.kind, r.strategy, r.policy, r.backend);
    r.seed = quint64(s.int64(5)); // stored bit for bit in a signed column
    r.status = RunRecord::statusFromName(s.text(6));
    r.config = s.jsonObject(7);
    r.budgetUsed = BudgetUsage::fromJson(s.jsonObject(8));
    s.columns(9, r.createdAt, r.updatedAt);
    if (const std::optional<qint64> secret = s.optionalInt64(11))
        r.verifierSecret = quint64(*secret); // bit for bit, as the seed
    return r;
}

QJsonObject runCreatedPayload(const RunRecord &run)
{
    return {{QStringLiteral("kind"), run.kind},
            {QStringLiteral("tasks"), QJsonArray::fromStringList(run.tasks)},
            {QStringLiteral("strategy"), run.strategy},
            {QStringLiteral("policy"), run.policy},
            {QStringLiteral("backend"), run.backend},
            {QStringLiteral("seed"), QString::number(run.seed)},
            {QStringLiteral("status"), RunRecord::statusName(run.status)},
            {QStringLiteral("config"), run.config}};
}

} // namespace

qint64 RunStore::createRun(RunRecord &run, const QMap<QString, QJsonObject> &taskJson)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("createRun"))
        return 0;
    const QDateTime created = run.createdAt.isValid() ? run.createdAt : nowUtc();
    const QDateTime updated = run.updatedAt.isValid() ? run.updatedAt : created;
    qint64 id = 0;
    const bool ok = transaction([&] {
        SqliteStatement s(m_db, "INSERT INTO runs (kind, strategy, policy, backend, seed, status, "
                                "config_json, budget_json, created_at, updated_at, "
                                "verifier_secret) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        s.bindAll(run.kind, run.strategy, run.policy, run.backend, qint64(run.seed),
                  RunRecord::statusName(run.status), run.config, run.budgetUsed.toJson(), created,
                  updated);
        // Bound apart: g++ 12 warns (wrongly) of an uninitialised optional built from it here.
        if (run.verifierSecret)
            s.bind(11, qint64(*run.verifierSecret));
        else
            s.bindNull(11);
        if (!s.exec())
            return setError(QStringLiteral("createRun"), s.error());
        id = sqlite3_last_insert_rowid(m_db);
        for (int i = 0; i < run.tasks.size(); ++i) {
            SqliteStatement t(m_db, "INSERT INTO run_tasks (run_id, idx, task, task_json) "
                                    "VALUES (?1, ?2, ?3, ?4)");
            t.bindAll(id, i, run.tasks.at(i), taskJson.value(run.tasks.at(i)));
            if (!t.exec())
                return setError(QStringLiteral("createRun: task %1").arg(run.tasks.at(i)),
                                t.error());
        }
        return insertEvent(id, QStringLiteral("run_created"), std::nullopt,
                           runCreatedPayload(run)) > 0;
    });
    if (!ok)
        return 0;
    run.id = id;
    run.createdAt = created;
    run.updatedAt = updated;
    return id;
}

// Sets one column of a run (and its updated_at) and logs eventKind, in one transaction.
template <typename Value>
bool RunStore::updateRun(const char *context, qint64 runId, const char *column, const Value &value,
                         const QString &eventKind, const QJsonObject &payload)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable(context))
        return false;
    return transaction([&] {
        SqliteStatement s(m_db, QByteArray("UPDATE runs SET ") + column +
                                    " = ?1, updated_at = ?2 WHERE id = ?3");
        s.bindAll(value, QDateTime::currentMSecsSinceEpoch(), runId);
        if (!s.exec())
            return setError(QString::fromUtf8(context), s.error());
        if (sqlite3_changes(m_db) != 1)
            return setError(QString::fromUtf8(context), QStringLiteral("no run %1").arg(runId));
        return insertEvent(runId, eventKind, std::nullopt, payload) > 0;
    });
}

bool RunStore::updateRunStatus(qint64 runId, RunRecord::Status status)
{
    const QString name = RunRecord::statusName(status);
    return updateRun("updateRunStatus", runId, "status", name, QStringLiteral("run_status"),
                     {{QStringLiteral("status"), name}});
}

bool RunStore::updateRunBudget(qint64 runId, const BudgetUsage &used)
{
    const QJsonObject budget = used.toJson();
    return updateRun("updateRunBudget", runId, "budget_json", budget,
                     QStringLiteral("budget_updated"), {{QStringLiteral("budget_used"), budget}});
}

bool RunStore::loadRunTasks(RunRecord &run)
{
    SqliteStatement s(m_db, "SELECT task FROM run_tasks WHERE run_id = ?1 ORDER BY idx");
    s.bind(1, run.id);
    run.tasks.clear();
    while (s.next())
        run.tasks.append(s.text(0));
    return s.ok() || setError(QStringLiteral("run %1 tasks").arg(run.id), s.error());
}

std::optional<RunRecord> RunStore::run(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    std::optional<RunRecord> result;
    readSnapshot([&] {
        SqliteStatement s(m_db, QByteArray(runColumns) + "WHERE id = ?1");
        s.bind(1, runId);
        if (s.next())
            result = runFromRow(s);
        else if (!s.ok())
            return setError(QStringLiteral("run"), s.error());
        if (result && !loadRunTasks(*result)) {
            result.reset();
            return false;
        }
        return true;
    });
    return result;
}

QList<RunRecord> RunStore::runs()
{
    QMutexLocker lock(&m_mutex);
    QList<RunRecord> result;
    const bool ok = readSnapshot([&] {
        SqliteStatement s(m_db, QByteArray(runColumns) + "ORDER BY id");
        while (s.next())
            result.append(runFromRow(s));
        if (!s.ok())
            return setError(QStringLiteral("runs"), s.error());
        for (RunRecord &r : result) {
            if (!loadRunTasks(r))
                return false;
        }
        return true;
    });
    if (!ok)
        result.clear();
    return result;
}

QJsonObject RunStore::runTaskJson(qint64 runId, const QString &task)
{
    return selectValue<QJsonObject>(
        "runTaskJson", "SELECT task_json FROM run_tasks WHERE run_id = ?1 AND task = ?2", runId,
        task);
}

} // namespace kiln
