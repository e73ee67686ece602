// RunStore's opening, schema migrations and transactions: what every table shares. Each table's
// methods are in a source of their own (runstoreruns.cpp, runstorecandidates.cpp, ...).
#include "runstore.h"

#include "sqlitestatement.h"
#include "storeschema.h"

#include <QFile>
#include <QFileInfo>
#include <QMutexLocker>
#include <QUrl>

#include <memory>
#include <sqlite3.h>

namespace kiln {

namespace {

constexpr int busyTimeoutMs = 5000;

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

// The first of quick_check's findings, or empty when it says "ok". quick_check reads every page
// and checks its structure (not the indexes' contents): a file with a valid header and damaged
// pages is caught here rather than by the first query that reaches them.
QString damage(sqlite3 *db)
{
    SqliteStatement check(db, "PRAGMA quick_check(1)");
    if (!check.next())
        return check.error().isEmpty() ? QStringLiteral("quick_check gave no answer")
                                       : check.error();
    // One line: SQLite heads its findings with "*** in database main ***" and a line break.
    QString verdict = check.text(0).simplified();
    verdict.remove(QStringLiteral("*** in database main *** "));
    return verdict == QLatin1String("ok") ? QString() : verdict;
}

Inspection inspectFile(const QString &path, RunStore::Check check)
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
    if (result.error.isEmpty() && check == RunStore::Check::Integrity) {
        const QString found = damage(db);
        if (!found.isEmpty())
            result.error =
                QStringLiteral("%1: a damaged database (%2); left untouched").arg(path, found);
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

std::unique_ptr<RunStore> RunStore::open(const QString &path, Mode mode, QString *error,
                                         Check check)
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
        const Inspection inspection = inspectFile(path, check);
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
    const Inspection inspection = inspectFile(path, Check::Header);
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

QDateTime RunStore::nowUtc()
{
    return QDateTime::fromMSecsSinceEpoch(QDateTime::currentMSecsSinceEpoch(), Qt::UTC);
}

void RunStore::clearErrorOutsideTransaction()
{
    if (m_depth == 0)
        m_lastError.clear();
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
    clearErrorOutsideTransaction();
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
    clearErrorOutsideTransaction();
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
    clearErrorOutsideTransaction();
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
        // A step that rebuilds a referenced table runs with foreign keys off (a pragma that
        // has no effect inside a transaction), or dropping the old table would cascade.
        if (step.rebuildsTables && !exec("PRAGMA foreign_keys = OFF"))
            return false;
        const bool stepDone = migrateStep(step);
        if (step.rebuildsTables)
            exec("PRAGMA foreign_keys = ON");
        if (!stepDone)
            return false;
    }
    return true;
}

bool RunStore::migrateStep(const SchemaMigration &step)
{
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
    else if (version >= step.version)
        return commit();
    else if (version != step.version - 1)
        problem = QStringLiteral("unexpected schema version %1").arg(version);
    if (!problem.isEmpty()) {
        setError(m_path, problem);
        rollback();
        return false;
    }

    QByteArray bump = "PRAGMA user_version = " + QByteArray::number(step.version) + ";";
    if (step.version == 1)
        bump += "PRAGMA application_id = " + QByteArray::number(storeschema::applicationId) + ";";
    if (!exec(step.sql) || !exec(bump.constData())) {
        setError(QStringLiteral("%1: migration to schema %2").arg(m_path).arg(step.version),
                 m_lastError);
        rollback();
        return false;
    }
    if (step.rebuildsTables && SqliteStatement(m_db, "PRAGMA foreign_key_check").next()) {
        setError(m_path, QStringLiteral("migration to schema %1 would break a foreign key; "
                                        "left at the old version")
                             .arg(step.version));
        rollback();
        return false;
    }
    return commit();
}

} // namespace kiln
