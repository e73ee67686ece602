#include "store/runstore.h"
#include "store/storeschema.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace kiln;

namespace {

bool rawExec(const QString &path, const QByteArray &sql)
{
    sqlite3 *db = nullptr;
    char *message = nullptr;
    const bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, sql.constData(), nullptr, nullptr, &message) == SQLITE_OK;
    if (message)
        qWarning("%s", message);
    sqlite3_free(message);
    sqlite3_close(db);
    return ok;
}

QVariant rawValue(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    sqlite3_stmt *stmt = nullptr;
    QVariant value;
    if (sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
        if (sqlite3_column_type(stmt, 0) == SQLITE_INTEGER)
            value = sqlite3_column_int64(stmt, 0);
        else if (sqlite3_column_type(stmt, 0) == SQLITE_FLOAT)
            value = sqlite3_column_double(stmt, 0);
        else
            value = QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0)));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A workspace as version 1 of Kiln wrote it: the v1 DDL and rows in v1's shape.
QByteArray v1Database()
{
    const SchemaMigration &v1 = storeschema::migrations().constFirst();
    return QByteArray("PRAGMA journal_mode = WAL; BEGIN;") + v1.sql +
           "PRAGMA user_version = 1; PRAGMA application_id = " +
           QByteArray::number(storeschema::applicationId) + ";" + R"sql(
INSERT INTO runs (id, kind, strategy, policy, backend, seed, status, config_json, budget_json,
                  created_at, updated_at)
VALUES (1, 'search', 'beam', 'offline', 'cpu', 42, 'paused', '{"width":4}', '{"evals":2}',
        1700000000000, 1700000000500);
INSERT INTO run_tasks (run_id, idx, task, task_json) VALUES (1, 0, 'softmax', '{}');
INSERT INTO candidates (id, run_id, seq_in_run, task, parent_id, operation, source, created_at)
VALUES (1, 1, 1, 'softmax', NULL, 'sample', 'void a() {}', 1700000000100),
       (2, 1, 2, 'softmax', 1, 'refine', 'void b() {}', 1700000000200);
INSERT INTO candidates (id, run_id, seq_in_run, task, parent_id, second_parent_id, operation,
                        source, created_at)
VALUES (3, 1, 3, 'softmax', 1, 2, 'crossover', 'void c() {}', 1700000000300);
INSERT INTO evaluations (id, candidate_id, backend, verdict, correct, speedup, candidate_ms,
                         baseline_ms, summary, result_json, created_at)
VALUES (1, 2, 'cpu', 'pass', 1, 2.5, 4.0, 10.0, 'faster', '{}', 1700000000250);
INSERT INTO stages (evaluation_id, idx, name, ok, ms, detail)
VALUES (1, 0, 'compile', 1, 120.5, 'ok'), (1, 1, 'correctness', 1, 30.25, 'ok');
INSERT INTO flags (evaluation_id, idx, flag_id, message, lines_json, blocking)
VALUES (1, 0, 'note', 'fine', '[3]', 0);
INSERT INTO events (run_id, ts, kind, candidate_id, payload_json)
VALUES (1, 1700000000000, 'run_created', NULL, '{}'),
       (1, 1700000000100, 'candidate_added', 1, '{"seq":1}'),
       (1, 1700000000200, 'candidate_added', 2, '{"seq":2}'),
       (1, 1700000000250, 'candidate_evaluated', 2, '{}'),
       (1, 1700000000300, 'candidate_added', 3, '{"seq":3}');
COMMIT;
)sql";
}

} // namespace

class TestStoreMigration : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void stepsAreOrdered()
    {
        const QList<SchemaMigration> &steps = storeschema::migrations();
        QVERIFY(steps.size() >= 2);
        for (int i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps.at(i).version, i + 1);
            QVERIFY(steps.at(i).sql && *steps.at(i).sql);
        }
        QCOMPARE(RunStore::schemaVersion(), steps.constLast().version);
    }

    void v1ToCurrentPreservesData()
    {
        const QString path = m_dir.filePath(QStringLiteral("v1.kiln"));
        QVERIFY(rawExec(path, v1Database()));
        QCOMPARE(rawValue(path, "PRAGMA user_version").toInt(), 1);
        QCOMPARE(
            rawValue(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'llm_cache'").toInt(),
            0);

        // A reader cannot upgrade, and says so instead of reading a half-known schema.
        QString error;
        QVERIFY(!RunStore::open(path, RunStore::Mode::ReadOnly, &error));
        QVERIFY2(error.contains(QStringLiteral("read-write once to upgrade")), qPrintable(error));
        QCOMPARE(rawValue(path, "PRAGMA user_version").toInt(), 1);

        auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(rawValue(path, "PRAGMA user_version").toInt(), RunStore::schemaVersion());
        QCOMPARE(rawValue(path, "PRAGMA integrity_check").toString(), QStringLiteral("ok"));
        QCOMPARE(rawValue(path, "PRAGMA foreign_key_check").isValid(), false);

        const std::optional<RunRecord> run = store->run(1);
        QVERIFY(run);
        QCOMPARE(run->strategy, QStringLiteral("beam"));
        QCOMPARE(run->seed, quint64(42));
        QCOMPARE(run->status, RunRecord::Status::Paused);
        QCOMPARE(run->config.value(QStringLiteral("width")).toInt(), 4);
        QCOMPARE(run->budgetUsed.evals, 2);
        QCOMPARE(run->tasks, QStringList{QStringLiteral("softmax")});
        QCOMPARE(run->createdAt.toMSecsSinceEpoch(), 1700000000000LL);

        const QList<CandidateRecord> candidates = store->candidates(1);
        QCOMPARE(candidates.size(), 3);
        QCOMPARE(candidates.at(1).parent, std::optional<qint64>(1));
        QCOMPARE(candidates.at(2).operation, Operation::Crossover);
        QCOMPARE(candidates.at(2).secondParent, std::optional<qint64>(2));

        const std::optional<EvaluationResult> evaluation = store->evaluation(2);
        QVERIFY(evaluation);
        QCOMPARE(evaluation->verdict, Verdict::Pass);
        QCOMPARE(evaluation->speedup, std::optional<double>(2.5));
        QCOMPARE(evaluation->stages.size(), 2);
        QCOMPARE(evaluation->flags.at(0).lines, QList<int>{3});
        QCOMPARE(evaluation->flags.at(0).tier, QStringLiteral("telemetry")); // before tiers
        QCOMPARE(store->events(1).size(), 5);
        // v8 rebuilt the evaluations table (its verdict CHECK): nothing cascaded from the drop,
        // and the new verdict is accepted.
        QCOMPARE(rawValue(path, "SELECT count(*) FROM stages").toInt(), 2);
        QCOMPARE(rawValue(path, "SELECT count(*) FROM flags").toInt(), 1);
        EvaluationResult unjudged;
        unjudged.verdict = Verdict::VerifierError;
        unjudged.summary = QStringLiteral("not judged: the verifier's side failed");
        const qint64 unjudgedId = store->addEvaluation(3, unjudged);
        QVERIFY2(unjudgedId > 0, qPrintable(store->lastError()));
        QCOMPARE(store->evaluation(3)->verdict, Verdict::VerifierError);

        // What v2 added works on the old data: the backfilled stage total and the cache.
        QCOMPARE(rawValue(path, "SELECT total_ms FROM evaluations WHERE id = 1").toDouble(),
                 150.75);
        QCOMPARE(store->evaluationMilliseconds(1), 150.75);
        CachedResponse entry;
        entry.key = QStringLiteral("k");
        entry.response = QStringLiteral("r");
        QVERIFY(store->putCachedResponse(entry));

        // New writes continue the old run where it stopped.
        CandidateRecord next;
        next.runId = 1;
        next.task = QStringLiteral("softmax");
        next.operation = Operation::Mutate;
        next.parent = 3;
        next.source = QStringLiteral("void d() {}");
        QCOMPARE(store->addCandidate(next), 4);
        QCOMPARE(rawValue(path, "SELECT seq_in_run FROM candidates WHERE id = 4").toInt(), 4);
        QCOMPARE(store->events(1).constLast().kind, QStringLiteral("candidate_added"));
    }

    void reopeningCurrentIsANoOp()
    {
        const QString path = m_dir.filePath(QStringLiteral("current.kiln"));
        {
            auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            RunRecord run;
            run.tasks = {QStringLiteral("matmul")};
            QVERIFY(store->createRun(run) > 0);
        }
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal"))); // checkpointed on close
        const QByteArray before = readAll(path);
        const QVariant schemaBefore =
            rawValue(path, "SELECT group_concat(sql, ';') FROM sqlite_schema");
        {
            QString error;
            auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
            QVERIFY2(store, qPrintable(error));
            QCOMPARE(store->runs().size(), 1);
        }
        // No migration ran: the file, its change counter included, is byte-identical.
        QCOMPARE(readAll(path), before);
        QCOMPARE(rawValue(path, "SELECT group_concat(sql, ';') FROM sqlite_schema"), schemaBefore);
        QCOMPARE(rawValue(path, "PRAGMA user_version").toInt(), RunStore::schemaVersion());
    }

    void interruptedMigrationLeavesOldVersion()
    {
        // A v1 file whose v2 step cannot apply (the table it creates exists already) must stay
        // at v1 with its data, not end half-migrated.
        const QString path = m_dir.filePath(QStringLiteral("blocked.kiln"));
        QVERIFY(rawExec(path, v1Database() + "CREATE TABLE llm_cache (x);"));
        QString error;
        QVERIFY(!RunStore::open(path, RunStore::Mode::ReadWrite, &error));
        QVERIFY2(error.contains(QStringLiteral("migration to schema 2")), qPrintable(error));
        QCOMPARE(rawValue(path, "PRAGMA user_version").toInt(), 1);
        QCOMPARE(rawValue(path, "SELECT count(*) FROM pragma_table_info('evaluations') "
                                "WHERE name = 'total_ms'")
                     .toInt(),
                 0);
        QCOMPARE(rawValue(path, "SELECT count(*) FROM candidates").toInt(), 3);
    }
};

QTEST_GUILESS_MAIN(TestStoreMigration)
#include "tst_storemigration.moc"
