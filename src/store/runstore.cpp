#include "runstore.h"

#include "sqlitestatement.h"
#include "storeschema.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutexLocker>
#include <QUrl>

#include <memory>
#include <sqlite3.h>
#include <vector>

namespace kiln {

namespace {

constexpr int busyTimeoutMs = 5000;

QString jsonText(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QString jsonText(const QJsonArray &array)
{
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

// A malformed column reads as an empty object: a bad row must never take the reader down.
QJsonObject jsonObject(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QJsonArray jsonArray(const QString &text)
{
    return QJsonDocument::fromJson(text.toUtf8()).array();
}

QDateTime nowUtc()
{
    return QDateTime::fromMSecsSinceEpoch(QDateTime::currentMSecsSinceEpoch(), Qt::UTC);
}

QDateTime fromMs(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
}

QString sqliteMessage(sqlite3 *db)
{
    return QString::fromUtf8(sqlite3_errmsg(db));
}

// What a quick read-only look at an existing file found. Nothing here writes to the file.
struct Inspection
{
    QString error; // non-empty: refuse the file
    int version = 0;
};

Inspection inspectFile(const QString &path)
{
    Inspection result;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QStringLiteral("%1: cannot read (%2)").arg(path, file.errorString());
        return result;
    }
    const QByteArray header = file.read(100);
    file.close();
    const QString notSqlite =
        QStringLiteral("%1: not a SQLite database (corrupt or foreign file); left untouched")
            .arg(path);
    // SQLite treats a file shorter than one page as an empty database and would happily write
    // over it, so the header is checked by hand first.
    static const QByteArray magic("SQLite format 3\0", 16);
    if (header.size() < 100 || !header.startsWith(magic)) {
        result.error = notSqlite;
        return result;
    }

    // Without a -wal file beside it the main file holds all there is to read, and "immutable"
    // reads it without creating -wal and -shm files next to a file that may not be ours.
    // With one, the file may be live: read it the normal way.
    const bool walPresent = QFileInfo::exists(path + QStringLiteral("-wal"));
    const QByteArray name = walPresent ? path.toUtf8()
                                       : QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath())
                                                 .toEncoded(QUrl::FullyEncoded) +
                                             "?immutable=1";
    sqlite3 *db = nullptr;
    int rc =
        sqlite3_open_v2(name.constData(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
        result.error =
            QStringLiteral("%1: cannot open (%2)").arg(path, QString::fromUtf8(sqlite3_errstr(rc)));
        sqlite3_close_v2(db);
        return result;
    }
    sqlite3_busy_timeout(db, busyTimeoutMs);
    qint64 values[3] = {0, 0, 0};
    const char *const queries[3] = {"SELECT count(*) FROM sqlite_schema", "PRAGMA application_id",
                                    "PRAGMA user_version"};
    for (int i = 0; i < 3 && result.error.isEmpty(); ++i) {
        SqliteStatement statement(db, queries[i]);
        if (statement.next()) {
            values[i] = statement.int64(0);
        } else {
            const int code = sqlite3_errcode(db) & 0xff;
            if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
                result.error = notSqlite + QStringLiteral(" (%1)").arg(statement.error());
            else
                result.error = QStringLiteral("%1: cannot read (%2)").arg(path, statement.error());
        }
    }
    sqlite3_close_v2(db);
    if (!result.error.isEmpty())
        return result;

    const qint64 tables = values[0];
    const qint64 applicationId = values[1];
    result.version = int(values[2]);
    const bool kiln = applicationId == storeschema::applicationId;
    if ((!kiln && applicationId != 0) || (!kiln && tables > 0)) {
        result.error = QStringLiteral("%1: a SQLite database of another application (foreign "
                                      "database, application_id 0x%2); left untouched")
                           .arg(path)
                           .arg(quint32(applicationId), 8, 16, QLatin1Char('0'));
    } else if (result.version > storeschema::currentVersion()) {
        result.error = QStringLiteral("%1: created by a newer Kiln (schema %2, this build supports "
                                      "%3); left untouched")
                           .arg(path)
                           .arg(result.version)
                           .arg(storeschema::currentVersion());
    }
    return result;
}

void bindCandidate(SqliteStatement &s, const CandidateRecord &c, qint64 seq)
{
    s.bind(1, c.runId);
    s.bind(2, seq);
    s.bind(3, c.task);
    s.bind(4, c.parent);
    s.bind(5, c.secondParent);
    s.bind(6, operationName(c.operation));
    s.bind(7, c.generation);
    s.bind(8, c.island);
    s.bind(9, c.source);
    s.bind(10, c.policy);
    s.bind(11, jsonText(c.policyMeta));
    s.bind(12, c.prompt);
    s.bind(13, c.reasoning);
    s.bind(14, c.response);
    s.bind(15, c.promptTokens);
    s.bind(16, c.completionTokens);
    s.bind(17, c.reasoningTokens);
    s.bind(18, c.reasoningLength);
    s.bind(19, c.createdAt.toMSecsSinceEpoch());
    s.bind(20, c.sampleIndex);
    s.bind(21, qint64(c.round));
}

const char *const candidateColumns =
    "SELECT id, run_id, task, parent_id, second_parent_id, operation, generation, island, source, "
    "policy, policy_meta_json, prompt, reasoning, response, prompt_tokens, completion_tokens, "
    "reasoning_tokens, reasoning_length, created_at, sample_index, round FROM candidates ";

CandidateRecord candidateFromRow(const SqliteStatement &s)
{
    CandidateRecord c;
    c.id = s.int64(0);
    c.runId = s.int64(1);
    c.task = s.text(2);
    c.parent = s.optionalInt64(3);
    c.secondParent = s.optionalInt64(4);
    c.operation = operationFromName(s.text(5)).value_or(Operation::Sample);
    c.generation = int(s.int64(6));
    c.island = int(s.int64(7));
    c.source = s.text(8);
    c.policy = s.text(9);
    c.policyMeta = jsonObject(s.text(10));
    c.prompt = s.text(11);
    c.reasoning = s.text(12);
    c.response = s.text(13);
    c.promptTokens = s.int64(14);
    c.completionTokens = s.int64(15);
    c.reasoningTokens = s.int64(16);
    c.reasoningLength = s.int64(17);
    c.createdAt = fromMs(s.int64(18));
    c.sampleIndex = s.int64(19);
    c.round = int(s.int64(20));
    return c;
}

const char *const runColumns =
    "SELECT id, kind, strategy, policy, backend, seed, status, config_json, budget_json, "
    "created_at, updated_at, verifier_secret FROM runs ";

RunRecord runFromRow(const SqliteStatement &s)
{
    RunRecord r;
    r.id = s.int64(0);
    r.kind = s.text(1);
    r.strategy = s.text(2);
    r.policy = s.text(3);
    r.backend = s.text(4);
    r.seed = quint64(s.int64(5)); // stored bit for bit in a signed column
    r.status = RunRecord::statusFromName(s.text(6));
    r.config = jsonObject(s.text(7));
    r.budgetUsed = BudgetUsage::fromJson(jsonObject(s.text(8)));
    r.createdAt = fromMs(s.int64(9));
    r.updatedAt = fromMs(s.int64(10));
    if (const std::optional<qint64> secret = s.optionalInt64(11))
        r.verifierSecret = quint64(*secret); // bit for bit, as the seed
    return r;
}

} // namespace

RunStore::RunStore(sqlite3 *db, const QString &path, Mode mode)
    : m_db(db), m_path(path), m_mode(mode)
{
}

RunStore::~RunStore()
{
    sqlite3_close_v2(m_db);
}

int RunStore::schemaVersion()
{
    return storeschema::currentVersion();
}

QString RunStore::cacheKey(const QString &endpoint, const QString &model, const QByteArray &body,
                           int sampleIndex)
{
    // Length-prefixed fields, so that no two different requests hash the same bytes.
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QByteArray &field :
         {endpoint.toUtf8(), model.toUtf8(), QByteArray::number(sampleIndex), body}) {
        hash.addData(QByteArray::number(field.size()) + ':');
        hash.addData(field);
    }
    return QString::fromLatin1(hash.result().toHex());
}

std::unique_ptr<RunStore> RunStore::open(const QString &path, Mode mode, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return std::unique_ptr<RunStore>();
    };
    if (error)
        error->clear();
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return fail(QStringLiteral("%1: not a regular file").arg(path));
    if (!info.exists() && mode == Mode::ReadOnly)
        return fail(QStringLiteral("%1: no such database").arg(path));
    // Look before writing anything: a file that is not ours must stay byte-identical.
    if (info.exists() && info.size() > 0) {
        const Inspection inspection = inspectFile(path);
        if (!inspection.error.isEmpty())
            return fail(inspection.error);
    }

    const int flags =
        mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    sqlite3 *db = nullptr;
    const int rc = sqlite3_open_v2(path.toUtf8().constData(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const QString message = db ? sqliteMessage(db) : QString::fromUtf8(sqlite3_errstr(rc));
        sqlite3_close_v2(db);
        return fail(QStringLiteral("%1: cannot open (%2)").arg(path, message));
    }
    std::unique_ptr<RunStore> store(new RunStore(db, path, mode));
    sqlite3_busy_timeout(db, busyTimeoutMs);
    sqlite3_extended_result_codes(db, 1);

    if (mode == Mode::ReadWrite) {
        QString journalMode;
        QString journalError;
        {
            SqliteStatement journal(db, "PRAGMA journal_mode = WAL");
            journalMode = journal.next() ? journal.text(0) : QString();
            journalError = journal.ok() ? journalMode : journal.error();
        } // finalized here: a live statement would block the migrations' commits
        if (journalMode.compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
            return fail(
                QStringLiteral("%1: cannot switch to WAL mode (%2)").arg(path, journalError));
        // NORMAL is crash-safe in WAL mode: a killed process loses no committed transaction;
        // only a power loss may drop the last ones.
        if (!store->exec("PRAGMA foreign_keys = ON") ||
            !store->exec("PRAGMA synchronous = NORMAL") || !store->migrate())
            return fail(store->m_lastError);
    } else {
        int version = -1;
        QString versionError;
        {
            SqliteStatement versionQuery(db, "PRAGMA user_version");
            version = versionQuery.next() ? int(versionQuery.int64(0)) : -1;
            versionError = versionQuery.error();
        }
        if (version < 0)
            return fail(QStringLiteral("%1: cannot read (%2)").arg(path, versionError));
        if (version == 0)
            return fail(
                QStringLiteral("%1: an empty database, not yet a Kiln workspace").arg(path));
        if (version != schemaVersion())
            return fail(QStringLiteral("%1: schema %2 is older than this build's %3; open it "
                                       "read-write once to upgrade it")
                            .arg(path)
                            .arg(version)
                            .arg(schemaVersion()));
        store->exec("PRAGMA foreign_keys = ON");
    }
    return store;
}

bool RunStore::upgrade(const QString &path, QString *error)
{
    const QFileInfo info(path);
    if (!info.isFile() || info.size() == 0)
        return true; // nothing to upgrade; open() says what is wrong
    const Inspection inspection = inspectFile(path);
    if (!inspection.error.isEmpty() || inspection.version == 0 ||
        inspection.version >= schemaVersion())
        return true;
    return open(path, Mode::ReadWrite, error) != nullptr; // migrates, then closes
}

QString RunStore::lastError() const
{
    QMutexLocker lock(&m_mutex);
    return m_lastError;
}

bool RunStore::setError(const QString &context, const QString &message)
{
    m_lastError = context.isEmpty() ? message : context + QStringLiteral(": ") + message;
    return false;
}

bool RunStore::exec(const char *sql)
{
    char *message = nullptr;
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) == SQLITE_OK)
        return true;
    const QString text = message ? QString::fromUtf8(message) : sqliteMessage(m_db);
    sqlite3_free(message);
    return setError(QString(), text);
}

bool RunStore::requireWritable(const char *context)
{
    if (m_depth == 0)
        m_lastError.clear();
    if (m_mode == Mode::ReadWrite)
        return true;
    return setError(QString::fromUtf8(context), QStringLiteral("the store is open read-only"));
}

bool RunStore::begin(bool write)
{
    bool ok;
    if (m_depth == 0)
        ok = exec(write && m_mode == Mode::ReadWrite ? "BEGIN IMMEDIATE" : "BEGIN");
    else
        ok = exec(QByteArray("SAVEPOINT kiln_" + QByteArray::number(m_depth)).constData());
    if (ok)
        ++m_depth;
    return ok;
}

bool RunStore::commit()
{
    --m_depth;
    if (m_depth > 0)
        return exec(QByteArray("RELEASE kiln_" + QByteArray::number(m_depth)).constData());
    if (sqlite3_get_autocommit(m_db)) {
        // SQLite already rolled the transaction back (I/O error, out of memory).
        if (m_lastError.isEmpty())
            m_lastError = QStringLiteral("the transaction was rolled back by SQLite");
        return false;
    }
    if (exec("COMMIT"))
        return true;
    const QString error = m_lastError;
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    m_lastError = error;
    return false;
}

void RunStore::rollback()
{
    --m_depth;
    // Keep the error that caused the rollback, not the rollback's own.
    const QByteArray sql = m_depth > 0 ? "ROLLBACK TO kiln_" + QByteArray::number(m_depth) +
                                             "; RELEASE kiln_" + QByteArray::number(m_depth)
                                       : QByteArray("ROLLBACK");
    if (m_depth > 0 || !sqlite3_get_autocommit(m_db))
        sqlite3_exec(m_db, sql.constData(), nullptr, nullptr, nullptr);
}

bool RunStore::transaction(const std::function<bool()> &work)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    if (!begin(true))
        return false;
    bool ok = false;
    try {
        ok = work();
    } catch (...) {
        rollback();
        throw;
    }
    if (!ok) {
        if (m_lastError.isEmpty())
            m_lastError = QStringLiteral("transaction rolled back by its caller");
        rollback();
        return false;
    }
    return commit();
}

bool RunStore::readSnapshot(const std::function<bool()> &work)
{
    if (m_depth == 0)
        m_lastError.clear();
    if (!begin(false))
        return false;
    const bool ok = work();
    if (!ok) {
        rollback();
        return false;
    }
    return commit();
}

bool RunStore::migrate()
{
    for (const SchemaMigration &step : storeschema::migrations()) {
        // The version is read again inside the write transaction: another process may have
        // migrated the file since we looked.
        if (!begin(true))
            return false;
        qint64 values[3] = {0, 0, 0};
        const char *const queries[3] = {"PRAGMA user_version", "PRAGMA application_id",
                                        "SELECT count(*) FROM sqlite_schema"};
        for (int i = 0; i < 3; ++i) {
            SqliteStatement query(m_db, queries[i]);
            if (!query.next()) {
                setError(QStringLiteral("%1: migration").arg(m_path), query.error());
                rollback();
                return false;
            }
            values[i] = query.int64(0);
        }
        const qint64 version = values[0];
        QString problem;
        if (version > storeschema::currentVersion())
            problem = QStringLiteral("created by a newer Kiln (schema %1, this build supports "
                                     "%2); left untouched")
                          .arg(version)
                          .arg(storeschema::currentVersion());
        else if (version == 0 && (values[1] != 0 || values[2] > 0))
            problem = QStringLiteral("a SQLite database of another application (foreign "
                                     "database); left untouched");
        else if (version >= step.version) {
            if (!commit())
                return false;
            continue;
        } else if (version != step.version - 1)
            problem = QStringLiteral("unexpected schema version %1").arg(version);
        if (!problem.isEmpty()) {
            setError(m_path, problem);
            rollback();
            return false;
        }

        QByteArray bump = "PRAGMA user_version = " + QByteArray::number(step.version) + ";";
        if (step.version == 1)
            bump +=
                "PRAGMA application_id = " + QByteArray::number(storeschema::applicationId) + ";";
        if (!exec(step.sql) || !exec(bump.constData())) {
            setError(QStringLiteral("%1: migration to schema %2").arg(m_path).arg(step.version),
                     m_lastError);
            rollback();
            return false;
        }
        if (!commit())
            return false;
    }
    return true;
}

qint64 RunStore::insertEvent(qint64 runId, const QString &kind, std::optional<qint64> candidateId,
                             const QJsonObject &payload)
{
    SqliteStatement s(m_db, "INSERT INTO events (run_id, ts, kind, candidate_id, payload_json) "
                            "VALUES (?1, ?2, ?3, ?4, ?5)");
    s.bind(1, runId);
    s.bind(2, QDateTime::currentMSecsSinceEpoch());
    s.bind(3, kind);
    s.bind(4, candidateId);
    s.bind(5, jsonText(payload));
    if (!s.exec()) {
        setError(QStringLiteral("event \"%1\"").arg(kind), s.error());
        return 0;
    }
    return sqlite3_last_insert_rowid(m_db);
}

// ---- runs -------------------------------------------------------------------------------------

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
        s.bind(1, run.kind);
        s.bind(2, run.strategy);
        s.bind(3, run.policy);
        s.bind(4, run.backend);
        s.bind(5, qint64(run.seed));
        s.bind(6, RunRecord::statusName(run.status));
        s.bind(7, jsonText(run.config));
        s.bind(8, jsonText(run.budgetUsed.toJson()));
        s.bind(9, created.toMSecsSinceEpoch());
        s.bind(10, updated.toMSecsSinceEpoch());
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
            t.bind(1, id);
            t.bind(2, i);
            t.bind(3, run.tasks.at(i));
            t.bind(4, jsonText(taskJson.value(run.tasks.at(i))));
            if (!t.exec())
                return setError(QStringLiteral("createRun: task %1").arg(run.tasks.at(i)),
                                t.error());
        }
        const QJsonObject payload{{QStringLiteral("kind"), run.kind},
                                  {QStringLiteral("tasks"), QJsonArray::fromStringList(run.tasks)},
                                  {QStringLiteral("strategy"), run.strategy},
                                  {QStringLiteral("policy"), run.policy},
                                  {QStringLiteral("backend"), run.backend},
                                  {QStringLiteral("seed"), QString::number(run.seed)},
                                  {QStringLiteral("status"), RunRecord::statusName(run.status)},
                                  {QStringLiteral("config"), run.config}};
        return insertEvent(id, QStringLiteral("run_created"), std::nullopt, payload) > 0;
    });
    if (!ok)
        return 0;
    run.id = id;
    run.createdAt = created;
    run.updatedAt = updated;
    return id;
}

bool RunStore::updateRunStatus(qint64 runId, RunRecord::Status status)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("updateRunStatus"))
        return false;
    return transaction([&] {
        SqliteStatement s(m_db, "UPDATE runs SET status = ?1, updated_at = ?2 WHERE id = ?3");
        s.bind(1, RunRecord::statusName(status));
        s.bind(2, QDateTime::currentMSecsSinceEpoch());
        s.bind(3, runId);
        if (!s.exec())
            return setError(QStringLiteral("updateRunStatus"), s.error());
        if (sqlite3_changes(m_db) != 1)
            return setError(QStringLiteral("updateRunStatus"),
                            QStringLiteral("no run %1").arg(runId));
        const QJsonObject payload{{QStringLiteral("status"), RunRecord::statusName(status)}};
        return insertEvent(runId, QStringLiteral("run_status"), std::nullopt, payload) > 0;
    });
}

bool RunStore::updateRunBudget(qint64 runId, const BudgetUsage &used)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("updateRunBudget"))
        return false;
    return transaction([&] {
        SqliteStatement s(m_db, "UPDATE runs SET budget_json = ?1, updated_at = ?2 WHERE id = ?3");
        s.bind(1, jsonText(used.toJson()));
        s.bind(2, QDateTime::currentMSecsSinceEpoch());
        s.bind(3, runId);
        if (!s.exec())
            return setError(QStringLiteral("updateRunBudget"), s.error());
        if (sqlite3_changes(m_db) != 1)
            return setError(QStringLiteral("updateRunBudget"),
                            QStringLiteral("no run %1").arg(runId));
        const QJsonObject payload{{QStringLiteral("budget_used"), used.toJson()}};
        return insertEvent(runId, QStringLiteral("budget_updated"), std::nullopt, payload) > 0;
    });
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
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, "SELECT task_json FROM run_tasks WHERE run_id = ?1 AND task = ?2");
    s.bind(1, runId);
    s.bind(2, task);
    if (s.next())
        return jsonObject(s.text(0));
    if (!s.ok())
        setError(QStringLiteral("runTaskJson"), s.error());
    return {};
}

// ---- candidates -------------------------------------------------------------------------------

qint64 RunStore::addCandidate(CandidateRecord &candidate)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addCandidate"))
        return 0;
    const bool crossover = candidate.operation == Operation::Crossover;
    if (crossover && (!candidate.parent || !candidate.secondParent)) {
        setError(QStringLiteral("addCandidate"), QStringLiteral("crossover needs two parents"));
        return 0;
    }
    if (!crossover && candidate.secondParent) {
        setError(QStringLiteral("addCandidate"),
                 QStringLiteral("only a crossover has a second parent"));
        return 0;
    }
    const QDateTime created = candidate.createdAt.isValid() ? candidate.createdAt : nowUtc();
    qint64 id = 0;
    const bool ok = transaction([&] {
        SqliteStatement next(m_db, "SELECT COALESCE(MAX(seq_in_run), 0) + 1 FROM candidates "
                                   "WHERE run_id = ?1");
        next.bind(1, candidate.runId);
        if (!next.next())
            return setError(QStringLiteral("addCandidate"), next.error());
        const qint64 seq = next.int64(0);

        SqliteStatement s(m_db,
                          "INSERT INTO candidates (run_id, seq_in_run, task, parent_id, "
                          "second_parent_id, operation, generation, island, source, policy, "
                          "policy_meta_json, prompt, reasoning, response, prompt_tokens, "
                          "completion_tokens, reasoning_tokens, reasoning_length, created_at, "
                          "sample_index, round) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                          "?15, ?16, ?17, ?18, ?19, ?20, ?21)");
        CandidateRecord stored = candidate;
        stored.createdAt = created;
        bindCandidate(s, stored, seq);
        if (!s.exec())
            return setError(QStringLiteral("addCandidate"),
                            s.error() + QStringLiteral(" (unknown run or parent?)"));
        id = sqlite3_last_insert_rowid(m_db);

        auto idValue = [](const std::optional<qint64> &v) {
            return v ? QJsonValue(double(*v)) : QJsonValue(QJsonValue::Null);
        };
        const QJsonObject payload{
            {QStringLiteral("seq"), double(seq)},
            {QStringLiteral("task"), candidate.task},
            {QStringLiteral("operation"), operationName(candidate.operation)},
            {QStringLiteral("parent"), idValue(candidate.parent)},
            {QStringLiteral("second_parent"), idValue(candidate.secondParent)},
            {QStringLiteral("generation"), candidate.generation},
            {QStringLiteral("island"), candidate.island},
            {QStringLiteral("policy"), candidate.policy}};
        return insertEvent(candidate.runId, QStringLiteral("candidate_added"), id, payload) > 0;
    });
    if (!ok)
        return 0;
    candidate.id = id;
    candidate.createdAt = created;
    return id;
}

std::optional<CandidateRecord> RunStore::candidate(qint64 candidateId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, QByteArray(candidateColumns) + "WHERE id = ?1");
    s.bind(1, candidateId);
    if (s.next())
        return candidateFromRow(s);
    if (!s.ok())
        setError(QStringLiteral("candidate"), s.error());
    return std::nullopt;
}

QList<CandidateRecord> RunStore::candidates(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    QList<CandidateRecord> result;
    SqliteStatement s(
        m_db, QByteArray(candidateColumns + QByteArray("WHERE run_id = ?1 ORDER BY seq_in_run"))
                  .constData());
    s.bind(1, runId);
    while (s.next())
        result.append(candidateFromRow(s));
    if (!s.ok()) {
        setError(QStringLiteral("candidates"), s.error());
        result.clear();
    }
    return result;
}

qint64 RunStore::candidateCount(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, "SELECT count(*) FROM candidates WHERE run_id = ?1");
    s.bind(1, runId);
    if (s.next())
        return s.int64(0);
    setError(QStringLiteral("candidateCount"), s.error());
    return 0;
}

namespace {

// The lineage columns of a candidate, and the light columns of its evaluations: what the tree
// and the table show. Sources, prompts, transcripts and stage data stay on disk: every column
// read here is in the covering indices candidates_lineage and evaluations_lineage, and the
// three reads below cost a scan of those indices each, never a lookup per row.
const char *const lineageCandidates =
    "SELECT c.id, c.task, c.parent_id, c.second_parent_id, c.operation, c.generation, c.island, "
    "c.sample_index, c.round, c.policy, c.prompt_tokens, c.completion_tokens, "
    "c.reasoning_tokens, c.reasoning_length, c.created_at FROM candidates c ";
// Evaluations and their flags, in the candidates' order, each candidate's in id order and each
// evaluation's flags in their order: the indices give this order, so nothing is sorted, and a
// candidate's last evaluation is its latest.
const char *const lineageEvaluations =
    "SELECT c.id, e.id, e.verdict, e.correct, e.speedup, e.candidate_ms, e.total_ms, e.summary, "
    "f.flag_id, f.message, e.speedup_low, e.speedup_high, e.confirmed, e.duplicate_of "
    "FROM candidates c JOIN evaluations e ON e.candidate_id = c.id "
    "LEFT JOIN flags f ON f.evaluation_id = e.id ";

// A whole run, or a list of ids (a live document catching up), looked up by primary key.
QByteArray lineageFilter(bool all)
{
    return all ? QByteArray("WHERE c.run_id = ?1 ")
               : QByteArray("WHERE c.id IN (SELECT value FROM json_each(?2)) AND c.run_id = ?1 ");
}

// Texts that repeat down a run's rows (task, policy, operation, verdict), decoded once: a run of
// 100,000 candidates has a handful of distinct values in each of these columns.
class RepeatedTexts
{
public:
    QString get(const SqliteStatement &s, int column)
    {
        const QByteArrayView raw = s.bytes(column);
        for (const auto &[bytes, text] : m_seen)
            if (bytes == raw)
                return text;
        if (m_seen.size() >= 64)
            return s.text(column); // not a repeating column after all
        m_seen.emplace_back(raw.toByteArray(), CandidateSummary::shared(s.text(column)));
        return m_seen.back().second;
    }

private:
    std::vector<std::pair<QByteArray, QString>> m_seen;
};

CandidateSummary summaryFromRow(const SqliteStatement &s, RepeatedTexts &texts)
{
    CandidateSummary c;
    c.id = s.int64(0);
    c.task = texts.get(s, 1);
    c.parent = s.optionalInt64(2);
    c.secondParent = s.optionalInt64(3);
    c.operation = operationFromName(texts.get(s, 4)).value_or(Operation::Sample);
    c.generation = int(s.int64(5));
    c.island = int(s.int64(6));
    c.sampleIndex = s.int64(7);
    c.round = int(s.int64(8));
    c.policy = texts.get(s, 9);
    c.promptTokens = s.int64(10);
    c.completionTokens = s.int64(11);
    c.reasoningTokens = s.int64(12);
    c.reasoningLength = s.int64(13);
    c.createdAt = fromMs(s.int64(14));
    return c;
}

// One row of lineageEvaluations into its candidate: a new evaluation replaces the one before;
// a further row of the same evaluation adds a flag.
void applyEvaluationRow(const SqliteStatement &s, RepeatedTexts &texts, qint64 &evaluationId,
                        CandidateSummary &c)
{
    if (s.int64(1) != evaluationId) {
        evaluationId = s.int64(1);
        c.evaluated = true;
        c.verdict = verdictFromName(texts.get(s, 2)).value_or(Verdict::Crash);
        c.correct = s.int64(3) != 0;
        c.speedup = s.optionalReal(4);
        c.candidateMs = s.optionalReal(5);
        c.evaluationMs = s.real(6);
        c.summary = s.text(7);
        c.speedupLow = s.optionalReal(10);
        c.speedupHigh = s.optionalReal(11);
        c.confirmed = s.int64(12) != 0;
        c.duplicateOf = s.optionalInt64(13);
        c.flagIds.clear();
        c.firstFlag.clear();
    }
    if (s.isNull(8))
        return;
    if (c.flagIds.isEmpty())
        c.firstFlag = s.text(8) + QStringLiteral(": ") + s.text(9);
    c.flagIds << texts.get(s, 8);
}

} // namespace

QList<CandidateSummary> RunStore::lineage(qint64 runId, const QList<qint64> &ids)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    QList<CandidateSummary> result;
    QString idList;
    if (!ids.isEmpty()) {
        QStringList words;
        for (qint64 id : ids)
            words << QString::number(id);
        idList = QLatin1Char('[') + words.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    const bool all = idList.isEmpty();
    auto statement = [&](const char *columns, const char *order) {
        auto s = std::make_unique<SqliteStatement>(m_db, columns + lineageFilter(all) + order);
        s->bind(1, runId);
        if (!all)
            s->bind(2, idList);
        return s;
    };
    const bool ok = readSnapshot([&] {
        if (all) { // a large run would grow the list a dozen times
            SqliteStatement count(m_db, "SELECT count(*) FROM candidates WHERE run_id = ?1");
            count.bind(1, runId);
            result.reserve(count.next() ? qsizetype(count.int64(0)) : 0);
        }
        RepeatedTexts texts;
        const char *order = "ORDER BY c.run_id, c.seq_in_run";
        auto rows = statement(lineageCandidates, order);
        while (rows->next())
            result.append(summaryFromRow(*rows, texts));
        // Both reads walk the candidates in the same order: a cursor pairs them up.
        auto evaluations =
            statement(lineageEvaluations, "ORDER BY c.run_id, c.seq_in_run, e.id, f.idx");
        qsizetype row = 0;
        qint64 evaluationId = 0;
        while (evaluations->next()) {
            const qint64 candidate = evaluations->int64(0);
            while (row < result.size() && result[row].id != candidate) {
                ++row;
                evaluationId = 0;
            }
            if (row == result.size())
                break; // cannot happen inside one snapshot
            applyEvaluationRow(*evaluations, texts, evaluationId, result[row]);
        }
        for (const auto *s : {rows.get(), evaluations.get()})
            if (!s->ok())
                return setError(QStringLiteral("lineage"), s->error());
        return true;
    });
    if (!ok)
        result.clear();
    return result;
}

QHash<qint64, CandidatePlotFacts> RunStore::plotFacts(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    QHash<qint64, CandidatePlotFacts> facts;
    SqliteStatement s(m_db,
                      "SELECT c.id, json_extract(c.policy_meta_json, '$.cost'), e.created_at, "
                      "json_extract(x.data_json, '$.bytes'), json_extract(x.data_json, '$.flops'), "
                      "json_extract(x.data_json, '$.bandwidth_gbps'), "
                      "json_extract(x.data_json, '$.peak_tflops') FROM candidates c "
                      "LEFT JOIN evaluations e ON e.id = "
                      "(SELECT max(id) FROM evaluations WHERE candidate_id = c.id) "
                      "LEFT JOIN stages x ON x.evaluation_id = e.id AND x.name = 'timing' "
                      "WHERE c.run_id = ?1");
    s.bind(1, runId);
    while (s.next()) {
        CandidatePlotFacts f;
        f.cost = s.optionalReal(1).value_or(0.0);
        if (!s.isNull(2))
            f.evaluatedAt = fromMs(s.int64(2));
        f.bytes = s.optionalReal(3).value_or(0.0);
        f.flops = s.optionalReal(4).value_or(0.0);
        f.bandwidthGbps = s.optionalReal(5).value_or(0.0);
        f.peakTflops = s.optionalReal(6).value_or(0.0);
        facts.insert(s.int64(0), f);
    }
    if (!s.ok())
        setError(QStringLiteral("plotFacts"), s.error());
    return facts;
}

qint64 RunStore::eventCount(qint64 runId, const QStringList &kinds)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    qint64 total = 0;
    for (const QString &kind : kinds) {
        SqliteStatement s(m_db, "SELECT count(*) FROM events WHERE run_id = ?1 AND kind = ?2");
        s.bind(1, runId);
        s.bind(2, kind);
        if (s.next())
            total += s.int64(0);
        else if (!s.ok())
            setError(QStringLiteral("eventCount"), s.error());
    }
    return total;
}

qint64 RunStore::lastEventId(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, "SELECT coalesce(max(id), 0) FROM events WHERE run_id = ?1");
    s.bind(1, runId);
    if (s.next())
        return s.int64(0);
    setError(QStringLiteral("lastEventId"), s.error());
    return 0;
}

// ---- evaluations ------------------------------------------------------------------------------

qint64 RunStore::addEvaluation(qint64 candidateId, const EvaluationResult &result)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("addEvaluation"))
        return 0;
    qint64 id = 0;
    const bool ok = transaction([&] {
        SqliteStatement owner(m_db, "SELECT run_id FROM candidates WHERE id = ?1");
        owner.bind(1, candidateId);
        if (!owner.next())
            return setError(QStringLiteral("addEvaluation"),
                            owner.ok() ? QStringLiteral("no candidate %1").arg(candidateId)
                                       : owner.error());
        const qint64 runId = owner.int64(0);

        double totalMs = 0.0;
        for (const StageResult &stage : result.stages)
            totalMs += stage.ms;
        SqliteStatement s(m_db,
                          "INSERT INTO evaluations (candidate_id, backend, verdict, correct, "
                          "speedup, candidate_ms, baseline_ms, roofline_fraction, "
                          "candidate_timing_json, baseline_timing_json, summary, result_json, "
                          "created_at, total_ms, speedup_low, speedup_high, confirmed, "
                          "duplicate_of) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
                          "?15, ?16, ?17, ?18)");
        s.bind(1, candidateId);
        s.bind(2, backendName(result.backend));
        s.bind(3, verdictName(result.verdict));
        s.bind(4, result.correct);
        s.bind(5, result.speedup);
        s.bind(6, result.candidateMs);
        s.bind(7, result.baselineMs);
        s.bind(8, result.rooflineFraction);
        // The trials go into these columns only (the timing-distribution plot reads them).
        s.bind(9, jsonText(result.candidateTiming.n > 0 ? result.candidateTiming.toJsonWithTrials()
                                                        : QJsonObject()));
        s.bind(10, jsonText(result.baselineTiming.n > 0 ? result.baselineTiming.toJsonWithTrials()
                                                        : QJsonObject()));
        s.bind(11, result.summary);
        s.bind(12, jsonText(result.toJson()));
        s.bind(13, QDateTime::currentMSecsSinceEpoch());
        s.bind(14, totalMs);
        const auto &interval = result.speedupInterval;
        s.bind(15, interval ? std::optional<double>(interval->low) : std::nullopt);
        s.bind(16, interval ? std::optional<double>(interval->high) : std::nullopt);
        s.bind(17, result.confirmed);
        s.bind(18, result.duplicateOf);
        if (!s.exec())
            return setError(QStringLiteral("addEvaluation"), s.error());
        id = sqlite3_last_insert_rowid(m_db);

        for (int i = 0; i < result.stages.size(); ++i) {
            const StageResult &stage = result.stages.at(i);
            SqliteStatement st(m_db, "INSERT INTO stages (evaluation_id, idx, name, ok, ms, "
                                     "detail, data_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
            st.bind(1, id);
            st.bind(2, i);
            st.bind(3, stage.name);
            st.bind(4, stage.ok);
            st.bind(5, stage.ms);
            st.bind(6, stage.detail);
            st.bind(7, jsonText(stage.data));
            if (!st.exec())
                return setError(QStringLiteral("addEvaluation: stage %1").arg(stage.name),
                                st.error());
        }
        for (int i = 0; i < result.flags.size(); ++i) {
            const CheatFlag &flag = result.flags.at(i);
            QJsonArray lines;
            for (int line : flag.lines)
                lines.append(line);
            SqliteStatement f(m_db, "INSERT INTO flags (evaluation_id, idx, flag_id, message, "
                                    "lines_json, blocking) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
            f.bind(1, id);
            f.bind(2, i);
            f.bind(3, flag.id);
            f.bind(4, flag.message);
            f.bind(5, jsonText(lines));
            f.bind(6, flag.blocking);
            if (!f.exec())
                return setError(QStringLiteral("addEvaluation: flag %1").arg(flag.id), f.error());
        }
        QJsonObject payload{{QStringLiteral("evaluation_id"), double(id)},
                            {QStringLiteral("verdict"), verdictName(result.verdict)},
                            {QStringLiteral("correct"), result.correct},
                            {QStringLiteral("backend"), backendName(result.backend)},
                            {QStringLiteral("speedup"), result.speedup
                                                            ? QJsonValue(*result.speedup)
                                                            : QJsonValue(QJsonValue::Null)}};
        if (result.confirmed)
            payload.insert(QStringLiteral("confirmed"), true);
        if (result.duplicateOf)
            payload.insert(QStringLiteral("duplicate_of"), double(*result.duplicateOf));
        return insertEvent(runId, QStringLiteral("candidate_evaluated"), candidateId, payload) > 0;
    });
    return ok ? id : 0;
}

namespace {

// Reads the evaluations a filter selects (a WHERE clause over e = evaluations and c = candidates,
// with one parameter ?1), with their stages and flags; the latest evaluation of a candidate wins.
bool loadEvaluations(sqlite3 *db, const char *filter, qint64 key,
                     QMap<qint64, EvaluationResult> *byCandidate, QString *error)
{
    const QByteArray from = QByteArray(" JOIN evaluations e ON e.id = x.evaluation_id"
                                       " JOIN candidates c ON c.id = e.candidate_id ") +
                            filter;
    QHash<qint64, EvaluationResult> byEvaluation;
    QHash<qint64, qint64> latest; // candidate -> evaluation
    {
        SqliteStatement s(db, QByteArray("SELECT e.id, e.candidate_id, e.backend, e.verdict, "
                                         "e.correct, e.speedup, e.candidate_ms, e.baseline_ms, "
                                         "e.roofline_fraction, e.candidate_timing_json, "
                                         "e.baseline_timing_json, e.summary, "
                                         // PyTorch backend: against torch.compile, kept in
                                         // the result's JSON only (a malformed one reads as
                                         // none rather than failing the query).
                                         "CASE WHEN json_valid(e.result_json) THEN "
                                         "json_extract(e.result_json, '$.compiled_baseline_ms') "
                                         "END, CASE WHEN json_valid(e.result_json) THEN "
                                         "json_extract(e.result_json, '$.speedup_compiled') END, "
                                         "e.speedup_low, e.speedup_high, e.confirmed, "
                                         "e.duplicate_of, CASE WHEN json_valid(e.result_json) "
                                         "THEN json_extract(e.result_json, '$.disturbance') END "
                                         "FROM evaluations e "
                                         "JOIN candidates c ON c.id = e.candidate_id ") +
                                  filter + " ORDER BY e.id");
        s.bind(1, key);
        while (s.next()) {
            EvaluationResult r;
            r.backend = backendFromName(s.text(2)).value_or(Backend::Cpu);
            r.verdict = verdictFromName(s.text(3)).value_or(Verdict::Crash);
            r.correct = s.int64(4) != 0;
            r.speedup = s.optionalReal(5);
            r.candidateMs = s.optionalReal(6);
            r.baselineMs = s.optionalReal(7);
            r.rooflineFraction = s.optionalReal(8);
            r.candidateTiming = TimingStats::fromJson(jsonObject(s.text(9)));
            r.baselineTiming = TimingStats::fromJson(jsonObject(s.text(10)));
            r.summary = s.text(11);
            r.compiledBaselineMs = s.optionalReal(12);
            r.compiledSpeedup = s.optionalReal(13);
            if (r.speedup && !s.isNull(14) && !s.isNull(15))
                r.speedupInterval = SpeedupInterval{*r.speedup, s.real(14), s.real(15)};
            r.confirmed = s.int64(16) != 0;
            r.duplicateOf = s.optionalInt64(17);
            r.disturbance = s.text(18);
            byEvaluation.insert(s.int64(0), r);
            latest.insert(s.int64(1), s.int64(0));
        }
        if (!s.ok()) {
            *error = s.error();
            return false;
        }
    }
    {
        SqliteStatement s(db, "SELECT x.evaluation_id, x.name, x.ok, x.ms, x.detail, x.data_json "
                              "FROM stages x" +
                                  from + " ORDER BY x.evaluation_id, x.idx");
        s.bind(1, key);
        while (s.next()) {
            auto it = byEvaluation.find(s.int64(0));
            if (it == byEvaluation.end())
                continue;
            StageResult stage;
            stage.name = s.text(1);
            stage.ok = s.int64(2) != 0;
            stage.ms = s.real(3);
            stage.detail = s.text(4);
            stage.data = jsonObject(s.text(5));
            it->stages.append(stage);
        }
        if (!s.ok()) {
            *error = s.error();
            return false;
        }
    }
    {
        SqliteStatement s(db, "SELECT x.evaluation_id, x.flag_id, x.message, x.lines_json, "
                              "x.blocking FROM flags x" +
                                  from + " ORDER BY x.evaluation_id, x.idx");
        s.bind(1, key);
        while (s.next()) {
            auto it = byEvaluation.find(s.int64(0));
            if (it == byEvaluation.end())
                continue;
            CheatFlag flag;
            flag.id = s.text(1);
            flag.message = s.text(2);
            for (const QJsonValue &line : jsonArray(s.text(3)))
                flag.lines.append(line.toInt());
            flag.blocking = s.int64(4) != 0;
            it->flags.append(flag);
        }
        if (!s.ok()) {
            *error = s.error();
            return false;
        }
    }
    for (auto it = latest.cbegin(); it != latest.cend(); ++it)
        byCandidate->insert(it.key(), byEvaluation.value(it.value()));
    return true;
}

} // namespace

std::optional<EvaluationResult> RunStore::evaluation(qint64 candidateId)
{
    QMutexLocker lock(&m_mutex);
    QMap<qint64, EvaluationResult> found;
    readSnapshot([&] {
        QString error;
        if (!loadEvaluations(m_db, "WHERE e.candidate_id = ?1", candidateId, &found, &error))
            return setError(QStringLiteral("evaluation"), error);
        return true;
    });
    if (!found.contains(candidateId))
        return std::nullopt;
    return found.value(candidateId);
}

QMap<qint64, EvaluationResult> RunStore::evaluationsForRun(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    QMap<qint64, EvaluationResult> found;
    const bool ok = readSnapshot([&] {
        QString error;
        if (!loadEvaluations(m_db, "WHERE c.run_id = ?1", runId, &found, &error))
            return setError(QStringLiteral("evaluationsForRun"), error);
        return true;
    });
    if (!ok)
        found.clear();
    return found;
}

double RunStore::evaluationMilliseconds(qint64 runId)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, "SELECT COALESCE(SUM(e.total_ms), 0) FROM evaluations e "
                            "JOIN candidates c ON c.id = e.candidate_id WHERE c.run_id = ?1");
    s.bind(1, runId);
    if (s.next())
        return s.real(0);
    setError(QStringLiteral("evaluationMilliseconds"), s.error());
    return 0.0;
}

// ---- events -----------------------------------------------------------------------------------

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
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    QList<StoredEvent> result;
    SqliteStatement s(m_db, "SELECT id, run_id, ts, kind, candidate_id, payload_json FROM events "
                            "WHERE run_id = ?1 AND id > ?2 AND (?3 IS NULL OR kind = ?3) "
                            "ORDER BY id");
    s.bind(1, runId);
    s.bind(2, afterId);
    if (kind.isEmpty())
        s.bindNull(3);
    else
        s.bind(3, kind);
    while (s.next()) {
        StoredEvent e;
        e.id = s.int64(0);
        e.runId = s.int64(1);
        e.timestamp = fromMs(s.int64(2));
        e.kind = s.text(3);
        e.candidateId = s.optionalInt64(4);
        e.payload = jsonObject(s.text(5));
        result.append(e);
    }
    if (!s.ok()) {
        setError(QStringLiteral("events"), s.error());
        result.clear();
    }
    return result;
}

// ---- LLM cache --------------------------------------------------------------------------------

std::optional<CachedResponse> RunStore::cachedResponse(const QString &key)
{
    QMutexLocker lock(&m_mutex);
    if (m_depth == 0)
        m_lastError.clear();
    SqliteStatement s(m_db, "SELECT key, endpoint, model, body_hash, sample_index, response, "
                            "usage_json, created_at FROM llm_cache WHERE key = ?1");
    s.bind(1, key);
    if (s.next()) {
        CachedResponse entry;
        entry.key = s.text(0);
        entry.endpoint = s.text(1);
        entry.model = s.text(2);
        entry.bodyHash = s.text(3);
        entry.sampleIndex = int(s.int64(4));
        entry.response = s.text(5);
        entry.usage = jsonObject(s.text(6));
        entry.createdAt = fromMs(s.int64(7));
        return entry;
    }
    if (!s.ok())
        setError(QStringLiteral("cachedResponse"), s.error());
    return std::nullopt;
}

bool RunStore::putCachedResponse(const CachedResponse &entry)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("putCachedResponse"))
        return false;
    if (entry.key.isEmpty())
        return setError(QStringLiteral("putCachedResponse"), QStringLiteral("empty key"));
    SqliteStatement s(m_db, "INSERT OR REPLACE INTO llm_cache (key, endpoint, model, body_hash, "
                            "sample_index, response, usage_json, created_at) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    s.bind(1, entry.key);
    s.bind(2, entry.endpoint);
    s.bind(3, entry.model);
    s.bind(4, entry.bodyHash);
    s.bind(5, entry.sampleIndex);
    s.bind(6, entry.response);
    s.bind(7, jsonText(entry.usage));
    s.bind(8, (entry.createdAt.isValid() ? entry.createdAt : nowUtc()).toMSecsSinceEpoch());
    return s.exec() || setError(QStringLiteral("putCachedResponse"), s.error());
}

} // namespace kiln
