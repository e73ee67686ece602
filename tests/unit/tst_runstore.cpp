#include "store/runstore.h"
#include "store/storeschema.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace kiln;

namespace {

QByteArray readAll(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// Runs SQL on a raw connection, outside RunStore, to build or inspect files.
bool rawExec(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
              sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

qint64 rawInt(const QString &path, const char *sql)
{
    sqlite3 *db = nullptr;
    qint64 value = -1;
    sqlite3_stmt *stmt = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
        value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
}

QStringList siblingsOf(const QString &path)
{
    const QFileInfo info(path);
    return info.dir().entryList({info.fileName() + QStringLiteral("*")}, QDir::Files);
}

RunRecord sampleRun()
{
    RunRecord run;
    run.kind = QStringLiteral("search");
    run.tasks = {QStringLiteral("softmax"), QStringLiteral("matmul"), QStringLiteral("layernorm")};
    run.strategy = QStringLiteral("evolve");
    run.policy = QStringLiteral("llm");
    run.backend = QStringLiteral("cuda");
    run.seed = 0xFEDCBA9876543210ULL; // above INT64_MAX: must survive the signed column
    run.status = RunRecord::Status::Running;
    run.config = {{QStringLiteral("islands"), 4}, {QStringLiteral("temperature"), 0.7}};
    run.budgetUsed.samples = 3;
    run.budgetUsed.promptTokens = 1200;
    run.budgetUsed.cost = 0.25;
    run.verifierSecret = 0xF00DCAFE12345678ULL; // above INT64_MAX too
    return run;
}

CandidateRecord sampleCandidate(qint64 runId, Operation op = Operation::Sample)
{
    CandidateRecord c;
    c.runId = runId;
    c.task = QStringLiteral("softmax");
    c.operation = op;
    c.generation = 2;
    c.island = 1;
    c.source = QStringLiteral("extern \"C\" void softmax(const float *x, float *y, int n) {}\n"
                              "// ünïcode ✓");
    c.policy = QStringLiteral("llm");
    c.policyMeta = {{QStringLiteral("model"), QStringLiteral("m-1")},
                    {QStringLiteral("simulated"), true}};
    c.prompt = QStringLiteral("Write a faster softmax.");
    c.reasoning = QStringLiteral("Use a two-pass reduction.");
    c.response = QStringLiteral("```cpp\n...\n```");
    c.promptTokens = 812;
    c.completionTokens = 431;
    c.reasoningTokens = 2048;
    c.reasoningLength = 4096;
    c.createdAt = QDateTime::fromMSecsSinceEpoch(1'780'000'000'123LL, Qt::UTC);
    return c;
}

EvaluationResult sampleEvaluation()
{
    EvaluationResult r;
    r.verdict = Verdict::Flagged;
    r.correct = true;
    r.backend = Backend::Cuda;
    r.speedup = 1.75;
    r.candidateMs = 0.8;
    r.baselineMs = 1.4;
    r.rooflineFraction = std::nullopt;
    r.flags = {
        CheatFlag{
            QStringLiteral("side_stream"), QStringLiteral("launches on a stream"), {12, 40}, true},
        CheatFlag{QStringLiteral("timing_hint"), QStringLiteral("unusual"), {}, false}};
    StageResult screen{QStringLiteral("screen"), true, 1.5, QStringLiteral("2 findings"), {}};
    StageResult compile{QStringLiteral("compile"), true, 812.25, QStringLiteral("nvcc ok"),
                        QJsonObject{{QStringLiteral("warnings"), 3}}};
    StageResult timing{QStringLiteral("timing"), true, 95.0, QStringLiteral("n=30"), {}};
    r.stages = {screen, compile, timing};
    r.candidateTiming = TimingStats::fromSamples({0.8, 0.81, 0.79, 0.8});
    r.baselineTiming = TimingStats::fromSamples({1.4, 1.41, 1.39});
    r.summary = QStringLiteral("fast but uses a side stream");
    return r;
}

} // namespace

class TestRunStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_counter = 0;
    QString freshPath() { return m_dir.filePath(QStringLiteral("db%1.kiln").arg(++m_counter)); }

    // A valid Kiln database with one run, closed cleanly.
    QString makeKilnDatabase()
    {
        const QString path = freshPath();
        QString error;
        auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
        if (!store)
            return {};
        RunRecord run = sampleRun();
        store->createRun(run);
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void createsKilnDatabaseInWalMode()
    {
        const QString path = freshPath();
        QString error;
        auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(rawInt(path, "PRAGMA application_id"), qint64(storeschema::applicationId));
        QCOMPARE(rawInt(path, "PRAGMA user_version"), qint64(RunStore::schemaVersion()));
        QVERIFY(RunStore::schemaVersion() >= 2);
        // journal_mode is persistent in the file for WAL.
        QCOMPARE(readAll(path).mid(18, 2), QByteArray("\x02\x02", 2));
        for (const char *table : {"runs", "run_tasks", "candidates", "evaluations", "stages",
                                  "flags", "events", "llm_cache"}) {
            const QByteArray sql =
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '" +
                QByteArray(table) + "'";
            QCOMPARE(rawInt(path, sql.constData()), 1);
        }
    }

    void runRoundTrip()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        QVERIFY(store);
        RunRecord run = sampleRun();
        const QJsonObject snapshot{{QStringLiteral("entry"), QStringLiteral("matmul")}};
        const qint64 id = store->createRun(run, {{QStringLiteral("matmul"), snapshot}});
        QVERIFY2(id > 0, qPrintable(store->lastError()));
        QCOMPARE(run.id, id);
        QVERIFY(run.createdAt.isValid());

        std::optional<RunRecord> loaded = store->run(id);
        QVERIFY(loaded);
        QCOMPARE(loaded->kind, run.kind);
        QCOMPARE(loaded->tasks, run.tasks);
        QCOMPARE(loaded->strategy, run.strategy);
        QCOMPARE(loaded->policy, run.policy);
        QCOMPARE(loaded->backend, run.backend);
        QCOMPARE(loaded->seed, run.seed);
        QCOMPARE(loaded->verifierSecret, run.verifierSecret);
        QCOMPARE(loaded->status, RunRecord::Status::Running);
        QCOMPARE(loaded->config, run.config);
        QCOMPARE(loaded->budgetUsed.toJson(), run.budgetUsed.toJson());
        QCOMPARE(loaded->createdAt, run.createdAt);
        QCOMPARE(store->runTaskJson(id, QStringLiteral("matmul")), snapshot);
        QCOMPARE(store->runTaskJson(id, QStringLiteral("softmax")), QJsonObject());

        QVERIFY(store->updateRunStatus(id, RunRecord::Status::Paused));
        BudgetUsage used;
        used.evals = 7;
        used.deviceSeconds = 12.5;
        QVERIFY(store->updateRunBudget(id, used));
        loaded = store->run(id);
        QCOMPARE(loaded->status, RunRecord::Status::Paused);
        QCOMPARE(loaded->budgetUsed.evals, 7);
        QCOMPARE(loaded->budgetUsed.deviceSeconds, 12.5);
        QVERIFY(loaded->updatedAt >= loaded->createdAt);

        QVERIFY(!store->updateRunStatus(id + 100, RunRecord::Status::Finished));
        QVERIFY(store->lastError().contains(QStringLiteral("no run")));

        RunRecord second;
        second.kind = QStringLiteral("eval");
        second.tasks = {QStringLiteral("vector_add")};
        QVERIFY(store->createRun(second) > id);
        const QList<RunRecord> all = store->runs();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.at(0).id, id);
        QCOMPARE(all.at(1).kind, QStringLiteral("eval"));
        QCOMPARE(all.at(1).tasks, QStringList{QStringLiteral("vector_add")});

        QVERIFY(!store->run(9999));
        QVERIFY(store->lastError().isEmpty()); // not found is not an error
    }

    void candidateRoundTrip_data()
    {
        QTest::addColumn<int>("operation");
        for (Operation op : {Operation::Sample, Operation::Refine, Operation::Mutate,
                             Operation::Crossover, Operation::Manual})
            QTest::newRow(qPrintable(operationName(op))) << int(op);
    }

    void candidateRoundTrip()
    {
        QFETCH(int, operation);
        const auto op = Operation(operation);
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        QVERIFY(store->createRun(run) > 0);
        CandidateRecord a = sampleCandidate(run.id);
        CandidateRecord b = sampleCandidate(run.id);
        QVERIFY(store->addCandidate(a) > 0);
        QVERIFY(store->addCandidate(b) > a.id);

        CandidateRecord child = sampleCandidate(run.id, op);
        if (op != Operation::Sample)
            child.parent = a.id;
        if (op == Operation::Crossover)
            child.secondParent = b.id;
        const qint64 id = store->addCandidate(child);
        QVERIFY2(id > 0, qPrintable(store->lastError()));

        const std::optional<CandidateRecord> loaded = store->candidate(id);
        QVERIFY(loaded);
        QCOMPARE(loaded->toJson(), child.toJson());
        QCOMPARE(loaded->operation, op);
        if (op == Operation::Crossover) {
            QCOMPARE(loaded->parent, std::optional<qint64>(a.id));
            QCOMPARE(loaded->secondParent, std::optional<qint64>(b.id));
        }
        const QList<CandidateRecord> all = store->candidates(run.id);
        QCOMPARE(all.size(), 3);
        QCOMPARE(all.at(0).id, a.id);
        QCOMPARE(all.at(2).id, id);
        QCOMPARE(store->candidateCount(run.id), 3);
        QCOMPARE(rawInt(store->path(), "SELECT group_concat(seq_in_run) = '1,2,3' FROM "
                                       "(SELECT seq_in_run FROM candidates ORDER BY id)"),
                 1);
    }

    void rejectsInvalidCandidates_data()
    {
        QTest::addColumn<int>("operation");
        QTest::addColumn<qint64>("parent");
        QTest::addColumn<qint64>("secondParent");
        QTest::addColumn<qint64>("runOffset");
        QTest::addColumn<QString>("message");
        // 0 = no parent; -1 = the stored candidate; other = an id that does not exist.
        QTest::newRow("unknown parent") << int(Operation::Refine) << qint64(4242) << qint64(0)
                                        << qint64(0) << QStringLiteral("FOREIGN KEY");
        QTest::newRow("unknown second parent")
            << int(Operation::Crossover) << qint64(-1) << qint64(4243) << qint64(0)
            << QStringLiteral("FOREIGN KEY");
        QTest::newRow("crossover with one parent")
            << int(Operation::Crossover) << qint64(-1) << qint64(0) << qint64(0)
            << QStringLiteral("two parents");
        QTest::newRow("second parent without crossover")
            << int(Operation::Mutate) << qint64(-1) << qint64(-1) << qint64(0)
            << QStringLiteral("second parent");
        QTest::newRow("unknown run") << int(Operation::Sample) << qint64(0) << qint64(0)
                                     << qint64(77) << QStringLiteral("FOREIGN KEY");
    }

    void rejectsInvalidCandidates()
    {
        QFETCH(int, operation);
        QFETCH(qint64, parent);
        QFETCH(qint64, secondParent);
        QFETCH(qint64, runOffset);
        QFETCH(QString, message);
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        CandidateRecord root = sampleCandidate(run.id);
        QVERIFY(store->addCandidate(root) > 0);
        const int eventsBefore = store->events(run.id).size();

        CandidateRecord bad = sampleCandidate(run.id + runOffset, Operation(operation));
        auto resolve = [&](qint64 v) -> std::optional<qint64> {
            if (v == 0)
                return std::nullopt;
            return v < 0 ? root.id : v;
        };
        bad.parent = resolve(parent);
        bad.secondParent = resolve(secondParent);
        QCOMPARE(store->addCandidate(bad), 0);
        QCOMPARE(bad.id, 0);
        QVERIFY2(store->lastError().contains(message), qPrintable(store->lastError()));
        QCOMPARE(store->candidateCount(run.id), 1);
        QCOMPARE(store->events(run.id).size(), eventsBefore); // the event rolled back too
        // The store stays usable after a failed write.
        CandidateRecord good = sampleCandidate(run.id, Operation::Refine);
        good.parent = root.id;
        QVERIFY(store->addCandidate(good) > 0);
        QVERIFY(store->lastError().isEmpty());
    }

    void evaluationRoundTrip()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        CandidateRecord c = sampleCandidate(run.id);
        CandidateRecord d = sampleCandidate(run.id);
        store->addCandidate(c);
        store->addCandidate(d);
        QVERIFY(!store->evaluation(c.id));

        const EvaluationResult result = sampleEvaluation();
        const qint64 evalId = store->addEvaluation(c.id, result);
        QVERIFY2(evalId > 0, qPrintable(store->lastError()));
        std::optional<EvaluationResult> loaded = store->evaluation(c.id);
        QVERIFY(loaded);
        QCOMPARE(loaded->toJson(), result.toJson());
        QCOMPARE(loaded->stages.size(), 3);
        QCOMPARE(loaded->stages.at(1).data, result.stages.at(1).data);
        QCOMPARE(loaded->flags, result.flags);
        QCOMPARE(loaded->candidateTiming.toJson(), result.candidateTiming.toJson());
        QVERIFY(!loaded->rooflineFraction);
        QCOMPARE(rawInt(store->path(), "SELECT count(*) FROM stages"), 3);
        QCOMPARE(rawInt(store->path(), "SELECT count(*) FROM flags WHERE blocking = 1"), 1);

        EvaluationResult crash;
        crash.verdict = Verdict::CompileError;
        crash.stages = {StageResult{
            QStringLiteral("compile"), false, 40.0, QStringLiteral("error: expected ';'"), {}}};
        QVERIFY(store->addEvaluation(d.id, crash) > evalId);
        const QMap<qint64, EvaluationResult> forRun = store->evaluationsForRun(run.id);
        QCOMPARE(forRun.size(), 2);
        QCOMPARE(forRun.value(c.id).toJson(), result.toJson());
        QCOMPARE(forRun.value(d.id).toJson(), crash.toJson());
        QVERIFY(!forRun.value(d.id).speedup);

        // A second evaluation of the same candidate (another backend) becomes the current one.
        EvaluationResult again = sampleEvaluation();
        again.backend = Backend::Cpu;
        again.verdict = Verdict::Pass;
        again.flags.clear();
        QVERIFY(store->addEvaluation(c.id, again) > 0);
        QCOMPARE(store->evaluation(c.id)->toJson(), again.toJson());
        QCOMPARE(store->evaluationsForRun(run.id).value(c.id).verdict, Verdict::Pass);
        QCOMPARE(store->evaluationMilliseconds(run.id), 2 * (1.5 + 812.25 + 95.0) + 40.0);

        QCOMPARE(store->addEvaluation(123456, result), 0);
        QVERIFY(store->lastError().contains(QStringLiteral("no candidate")));
    }

    // A candidate's hardware profiles, newest first, a failed one with its reason.
    void profileRoundTrip()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        CandidateRecord c = sampleCandidate(run.id);
        store->addCandidate(c);
        ProfileRecord missing;
        missing.candidateId = c.id;
        missing.reason = QStringLiteral("Nsight Compute (ncu) is missing");
        QVERIFY2(store->addProfile(missing) > 0, qPrintable(store->lastError()));
        ProfileRecord reference;
        reference.candidateId = c.id;
        reference.subject = QStringLiteral("reference");
        reference.ok = true;
        reference.reportPath = QStringLiteral("profiles/run1-candidate1-reference.ncu-rep");
        reference.metrics = {{QStringLiteral("duration_ms"), 0.042}};
        reference.fingerprint = {{QStringLiteral("gpu"), QStringLiteral("NVIDIA H100")}};
        QVERIFY(store->addProfile(reference) > missing.id);
        const QList<ProfileRecord> profiles = store->profiles(c.id);
        QCOMPARE(profiles.size(), 2);
        QCOMPARE(profiles[0].toJson(), reference.toJson());
        QCOMPARE(profiles[1].ok, false);
        QCOMPARE(profiles[1].subject, QStringLiteral("candidate"));
        QCOMPARE(profiles[1].reason, missing.reason);
        QVERIFY(store->profiles(c.id + 1).isEmpty());
        // A subject that is neither is refused by the table.
        ProfileRecord odd = missing;
        odd.subject = QStringLiteral("baseline");
        QCOMPARE(store->addProfile(odd), 0);
    }

    // The PyTorch backend's speedup against torch.compile has no column: it comes back from the
    // result's JSON, and stays empty for evaluations without one.
    void torchCompileSpeedupRoundTrip()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        CandidateRecord c = sampleCandidate(run.id);
        CandidateRecord d = sampleCandidate(run.id);
        store->addCandidate(c);
        store->addCandidate(d);
        EvaluationResult torch = sampleEvaluation();
        torch.backend = Backend::Torch;
        torch.verdict = Verdict::Pass;
        torch.compiledBaselineMs = 0.9;
        torch.compiledSpeedup = 1.125;
        QVERIFY(store->addEvaluation(c.id, torch) > 0);
        QVERIFY(store->addEvaluation(d.id, sampleEvaluation()) > 0);
        const std::optional<EvaluationResult> loaded = store->evaluation(c.id);
        QVERIFY(loaded);
        QCOMPARE(loaded->backend, Backend::Torch);
        QCOMPARE(loaded->compiledBaselineMs, std::optional<double>(0.9));
        QCOMPARE(loaded->compiledSpeedup, std::optional<double>(1.125));
        QCOMPARE(loaded->toJson(), torch.toJson());
        const QMap<qint64, EvaluationResult> forRun = store->evaluationsForRun(run.id);
        QCOMPARE(forRun.value(c.id).compiledSpeedup, std::optional<double>(1.125));
        QVERIFY(!forRun.value(d.id).compiledSpeedup);
        QVERIFY(!forRun.value(d.id).compiledBaselineMs);
    }

    // A flag's tier survives JSON and the store; one stored without a tier (older runs) takes
    // the tier its blocking implies.
    void flagTiersRoundTrip()
    {
        const CheatFlag suspicious{QStringLiteral("static_state"),
                                   QStringLiteral("a counter"),
                                   {4},
                                   false,
                                   QStringLiteral("suspicious")};
        QCOMPARE(suspicious.toJson().value(QStringLiteral("tier")).toString(),
                 QStringLiteral("suspicious"));
        QCOMPARE(CheatFlag::fromJson(suspicious.toJson()).tier, QStringLiteral("suspicious"));
        QCOMPARE(CheatFlag::fromJson(suspicious.toJson()), suspicious);
        const CheatFlag unset{QStringLiteral("old"), QStringLiteral("m"), {}, true};
        QCOMPARE(unset.toJson().value(QStringLiteral("tier")).toString(), QStringLiteral("hard"));
        QCOMPARE(unset, CheatFlag::fromJson(unset.toJson()));
        QVERIFY(suspicious != CheatFlag::fromJson(QJsonObject{}));
        const QJsonObject oldBlocking{{QStringLiteral("id"), QStringLiteral("side_stream")},
                                      {QStringLiteral("blocking"), true}};
        QCOMPARE(CheatFlag::fromJson(oldBlocking).tier, QStringLiteral("hard"));
        const QJsonObject oldAdvisory{{QStringLiteral("id"), QStringLiteral("large_speedup")},
                                      {QStringLiteral("blocking"), false}};
        QCOMPARE(CheatFlag::fromJson(oldAdvisory).tier, QStringLiteral("telemetry"));
        QCOMPARE(CheatFlag::fromJson(oldAdvisory).label(),
                 QStringLiteral("[telemetry] large_speedup"));

        const QString path = freshPath();
        qint64 candidateId = 0;
        qint64 runId = 0;
        {
            auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            RunRecord run = sampleRun();
            runId = store->createRun(run);
            CandidateRecord c = sampleCandidate(runId);
            candidateId = store->addCandidate(c);
            EvaluationResult result = sampleEvaluation(); // side_stream blocks, timing_hint not
            result.flags.append(suspicious);
            QVERIFY(store->addEvaluation(candidateId, result) > 0);
            const QList<CheatFlag> loaded = store->evaluation(candidateId)->flags;
            QCOMPARE(loaded.size(), 3);
            QCOMPARE(loaded.at(0).tier, QStringLiteral("hard"));
            QCOMPARE(loaded.at(1).tier, QStringLiteral("telemetry"));
            QCOMPARE(loaded.at(2).tier, QStringLiteral("suspicious"));
            QCOMPARE(store->evaluationsForRun(runId).value(candidateId).flags, loaded);
        }
        // A result written before tiers: its flags' tiers come from their blocking.
        QVERIFY(rawExec(path, "UPDATE evaluations SET result_json = json_remove(result_json, "
                              "'$.flags[0].tier', '$.flags[1].tier', '$.flags[2].tier')"));
        auto store = RunStore::open(path, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const QList<CheatFlag> old = store->evaluation(candidateId)->flags;
        QCOMPARE(old.size(), 3);
        QCOMPARE(old.at(0).tier, QStringLiteral("hard"));
        QCOMPARE(old.at(2).tier, QStringLiteral("telemetry"));
    }

    // The tree's query: lineage columns and the latest verdict, equal to what the full records
    // say, for the whole run or for the candidates asked for.
    void lineageMatchesTheFullRecords()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        RunRecord other = sampleRun();
        store->createRun(other);
        CandidateRecord root = sampleCandidate(run.id);
        store->addCandidate(root);
        CandidateRecord child = sampleCandidate(run.id, Operation::Refine);
        child.parent = root.id;
        child.policy = QStringLiteral("offline");
        child.policyMeta = {};
        store->addCandidate(child);
        CandidateRecord foreign = sampleCandidate(other.id);
        store->addCandidate(foreign);
        store->addEvaluation(root.id, sampleEvaluation());
        EvaluationResult later = sampleEvaluation(); // the newer evaluation counts
        later.verdict = Verdict::Pass;
        later.speedup = 2.5;
        later.flags = {
            CheatFlag{QStringLiteral("large_speedup"), QStringLiteral("review"), {}, false}};
        store->addEvaluation(root.id, later);

        const QList<CandidateSummary> rows = store->lineage(run.id);
        QCOMPARE(rows.size(), 2);
        for (const CandidateSummary &row : rows) {
            CandidateSummary expected = CandidateSummary::fromRecord(*store->candidate(row.id));
            if (const auto evaluation = store->evaluation(row.id))
                expected.applyEvaluation(*evaluation);
            QCOMPARE(row.id, expected.id);
            QCOMPARE(row.task, expected.task);
            QCOMPARE(row.parent, expected.parent);
            QCOMPARE(row.operation, expected.operation);
            QCOMPARE(row.generation, expected.generation);
            QCOMPARE(row.island, expected.island);
            QCOMPARE(row.policy, expected.policy);
            QCOMPARE(row.totalTokens(), expected.totalTokens());
            QCOMPARE(row.reasoningLength, expected.reasoningLength);
            QCOMPARE(row.createdAt, expected.createdAt);
            QCOMPARE(row.evaluated, expected.evaluated);
            QCOMPARE(row.verdict, expected.verdict);
            QCOMPARE(row.speedup, expected.speedup);
            QCOMPARE(row.candidateMs, expected.candidateMs);
            QCOMPARE(row.evaluationMs, expected.evaluationMs);
            QCOMPARE(row.flagIds, expected.flagIds);
            QCOMPARE(row.firstFlag, expected.firstFlag);
            QCOMPARE(row.summary, expected.summary);
        }
        QCOMPARE(rows.at(0).flagIds, QStringList{QStringLiteral("large_speedup")});
        QVERIFY(!rows.at(1).evaluated);

        const QList<CandidateSummary> one = store->lineage(run.id, {child.id, foreign.id});
        QCOMPARE(one.size(), 1); // another run's candidate is not this run's
        QCOMPARE(one.first().id, child.id);

        const QList<StoredEvent> evaluated =
            store->events(run.id, 0, QStringLiteral("candidate_evaluated"));
        QCOMPARE(evaluated.size(), 2);
        QCOMPARE(store->lastEventId(run.id), store->events(run.id).constLast().id);
        QCOMPARE(store->lastEventId(run.id + 100), 0);
    }

    void eventsInOrder()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        CandidateRecord c = sampleCandidate(run.id);
        store->addCandidate(c);
        store->addEvaluation(c.id, sampleEvaluation());
        const QJsonObject payload{{QStringLiteral("beam"), QJsonArray{1, 2}}};
        const qint64 custom =
            store->appendEvent(run.id, QStringLiteral("strategy_state"), std::nullopt, payload);
        QVERIFY(custom > 0);
        store->updateRunStatus(run.id, RunRecord::Status::Finished);

        RunRecord other = sampleRun();
        store->createRun(other); // its events must not show up in the first run's log

        const QList<StoredEvent> events = store->events(run.id);
        QStringList kinds;
        for (const StoredEvent &e : events)
            kinds.append(e.kind);
        QCOMPARE(kinds,
                 (QStringList{QStringLiteral("run_created"), QStringLiteral("candidate_added"),
                              QStringLiteral("candidate_evaluated"),
                              QStringLiteral("strategy_state"), QStringLiteral("run_status")}));
        for (int i = 1; i < events.size(); ++i) {
            QVERIFY(events.at(i).id > events.at(i - 1).id);
            QVERIFY(events.at(i).timestamp >= events.at(i - 1).timestamp);
        }
        QCOMPARE(events.at(1).candidateId, std::optional<qint64>(c.id));
        QCOMPARE(events.at(1).payload.value(QStringLiteral("seq")).toInt(), 1);
        QCOMPARE(events.at(2).payload.value(QStringLiteral("verdict")).toString(),
                 QStringLiteral("flagged"));
        QCOMPARE(events.at(3).payload, payload);
        QVERIFY(!events.at(3).candidateId);
        QCOMPARE(events.at(4).payload.value(QStringLiteral("status")).toString(),
                 QStringLiteral("finished"));

        const QList<StoredEvent> after = store->events(run.id, events.at(2).id);
        QCOMPARE(after.size(), 2);
        QCOMPARE(after.at(0).id, custom);

        QVERIFY(!rawExec(store->path(), "UPDATE events SET kind = 'forged'"));
        QCOMPARE(store->events(run.id).constFirst().kind, QStringLiteral("run_created"));
        QCOMPARE(store->appendEvent(run.id + 99, QStringLiteral("x")), 0);
    }

    void transactionsCommitAndRollBack()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run = sampleRun();
        store->createRun(run);
        const bool rolledBack = store->transaction([&] {
            CandidateRecord a = sampleCandidate(run.id);
            CandidateRecord b = sampleCandidate(run.id);
            return store->addCandidate(a) > 0 && store->addCandidate(b) > 0 && false;
        });
        QVERIFY(!rolledBack);
        QCOMPARE(store->candidateCount(run.id), 0);

        const bool committed = store->transaction([&] {
            CandidateRecord a = sampleCandidate(run.id);
            if (store->addCandidate(a) == 0)
                return false;
            // An inner failure rolls back only the inner level.
            store->transaction([&] {
                CandidateRecord b = sampleCandidate(run.id);
                store->addCandidate(b);
                return false;
            });
            CandidateRecord c = sampleCandidate(run.id);
            return store->addCandidate(c) > 0;
        });
        QVERIFY2(committed, qPrintable(store->lastError()));
        QCOMPARE(store->candidateCount(run.id), 2);
        const QList<CandidateRecord> all = store->candidates(run.id);
        QCOMPARE(rawInt(store->path(), "SELECT max(seq_in_run) FROM candidates"), 2);
        QCOMPARE(store->events(run.id).size(), 3);
    }

    void llmCache()
    {
        auto store = RunStore::open(freshPath(), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        const QByteArray body = R"({"messages":[{"role":"user","content":"hi"}]})";
        const QString key =
            RunStore::cacheKey(QStringLiteral("http://x/v1"), QStringLiteral("m-1"), body, 0);
        QCOMPARE(key,
                 RunStore::cacheKey(QStringLiteral("http://x/v1"), QStringLiteral("m-1"), body, 0));
        QVERIFY(key !=
                RunStore::cacheKey(QStringLiteral("http://x/v1"), QStringLiteral("m-1"), body, 1));
        QVERIFY(key !=
                RunStore::cacheKey(QStringLiteral("http://x/v1m"), QStringLiteral("-1"), body, 0));
        QVERIFY(!store->cachedResponse(key));

        CachedResponse entry;
        entry.key = key;
        entry.endpoint = QStringLiteral("http://x/v1");
        entry.model = QStringLiteral("m-1");
        entry.bodyHash = QStringLiteral("abc");
        entry.sampleIndex = 0;
        entry.response = QStringLiteral("{\"choices\":[]}");
        entry.usage = {{QStringLiteral("prompt_tokens"), 10}};
        QVERIFY(store->putCachedResponse(entry));
        std::optional<CachedResponse> hit = store->cachedResponse(key);
        QVERIFY(hit);
        QCOMPARE(hit->response, entry.response);
        QCOMPARE(hit->usage, entry.usage);
        QCOMPARE(hit->model, entry.model);
        QVERIFY(hit->createdAt.isValid());

        entry.response = QStringLiteral("second");
        QVERIFY(store->putCachedResponse(entry));
        QCOMPARE(store->cachedResponse(key)->response, QStringLiteral("second"));
        QCOMPARE(rawInt(store->path(), "SELECT count(*) FROM llm_cache"), 1);
        entry.key.clear();
        QVERIFY(!store->putCachedResponse(entry));
    }

    void readOnlyStore()
    {
        const QString path = makeKilnDatabase();
        QVERIFY(!path.isEmpty());
        QString error;
        auto reader = RunStore::open(path, RunStore::Mode::ReadOnly, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->runs().size(), 1);
        RunRecord run = sampleRun();
        QCOMPARE(reader->createRun(run), 0);
        QVERIFY(reader->lastError().contains(QStringLiteral("read-only")));
        QVERIFY(!reader->updateRunStatus(1, RunRecord::Status::Failed));
        QCOMPARE(reader->runs().constFirst().status, RunRecord::Status::Running);

        QVERIFY(!RunStore::open(m_dir.filePath(QStringLiteral("absent.kiln")),
                                RunStore::Mode::ReadOnly, &error));
        QVERIFY(error.contains(QStringLiteral("no such database")));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("absent.kiln"))));
    }

    void badRowsReadAsDefaults()
    {
        const QString path = makeKilnDatabase();
        QVERIFY(rawExec(path, "UPDATE runs SET config_json = 'not json', budget_json = '[1,'"));
        QVERIFY(rawExec(path,
                        "INSERT INTO candidates (run_id, seq_in_run, task, operation, source, "
                        "policy_meta_json, created_at) VALUES (1, 1, 't', 'sample', 's', '{x', 0);"
                        "INSERT INTO evaluations (candidate_id, backend, verdict, correct, "
                        "candidate_timing_json, result_json, created_at) "
                        "VALUES (1, 'quantum', 'pass', 1, '][', 'garbage', 0);"
                        "INSERT INTO flags (evaluation_id, idx, flag_id, lines_json, blocking) "
                        "VALUES (1, 0, 'f', 'oops', 0);"));
        auto store = RunStore::open(path, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const std::optional<RunRecord> run = store->run(1);
        QVERIFY(run);
        QVERIFY(run->config.isEmpty());
        QCOMPARE(run->budgetUsed.samples, 0);
        QVERIFY(store->candidate(1)->policyMeta.isEmpty());
        const std::optional<EvaluationResult> e = store->evaluation(1);
        QVERIFY(e);
        QCOMPARE(e->backend, Backend::Cpu);
        QCOMPARE(e->flags.size(), 1);
        QVERIFY(e->flags.at(0).lines.isEmpty());
        // Without a readable result_json, the tier follows from blocking = 0.
        QCOMPARE(e->flags.at(0).tier, QStringLiteral("telemetry"));
        QVERIFY(!e->compiledSpeedup); // its result_json is garbage
    }

    void emptyFileBecomesWorkspace()
    {
        const QString path = freshPath();
        writeAll(path, {});
        auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
        QVERIFY(store);
        QCOMPARE(rawInt(path, "PRAGMA user_version"), qint64(RunStore::schemaVersion()));
    }

    void refusesCorruptFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("mode");
        QByteArray random(8192, Qt::Uninitialized);
        QRandomGenerator generator(1234);
        for (char &b : random)
            b = char(generator.bounded(256));
        const QByteArray text = "name,speedup\nsoftmax,1.5\nmatmul,0.9\n";
        const QString kilnPath = makeKilnDatabase();
        const QByteArray kiln = readAll(kilnPath);
        QVERIFY(kiln.size() >= 4096);
        QByteArray garbledSchema = kiln;
        // Page 1 keeps its valid header but its b-tree (the schema) is overwritten.
        for (int i = 100; i < 400; ++i)
            garbledSchema[i] = char(0xA5);

        for (int mode : {int(RunStore::Mode::ReadWrite), int(RunStore::Mode::ReadOnly)}) {
            const char *m = mode == int(RunStore::Mode::ReadWrite) ? "rw" : "ro";
            QTest::addRow("random bytes %s", m) << random << mode;
            QTest::addRow("text file %s", m) << text << mode;
            QTest::addRow("kiln header cut at 60 bytes %s", m) << kiln.left(60) << mode;
            QTest::addRow("kiln header cut at 100 bytes %s", m) << kiln.left(100) << mode;
            QTest::addRow("kiln page cut at 1000 bytes %s", m) << kiln.left(1000) << mode;
            QTest::addRow("garbled schema page %s", m) << garbledSchema << mode;
        }
    }

    void refusesCorruptFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, mode);
        const QString path = freshPath();
        writeAll(path, bytes);
        const QStringList filesBefore = siblingsOf(path);
        QString error;
        auto store = RunStore::open(path, RunStore::Mode(mode), &error);
        QVERIFY(!store);
        QVERIFY2(error.contains(QStringLiteral("not a SQLite database")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("left untouched")));
        QVERIFY(error.startsWith(path));
        QCOMPARE(readAll(path), bytes);
        QCOMPARE(siblingsOf(path), filesBefore);
    }

    void refusesForeignDatabases_data()
    {
        QTest::addColumn<QByteArray>("sql");
        QTest::newRow("tables, no application id")
            << QByteArray("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);"
                          "INSERT INTO photos (name) VALUES ('cat.png');");
        QTest::newRow("another application id")
            << QByteArray("PRAGMA application_id = 1234567; CREATE TABLE t (x);");
        QTest::newRow("another application id, no tables")
            << QByteArray("PRAGMA application_id = 1234567; PRAGMA user_version = 1;");
    }

    void refusesForeignDatabases()
    {
        QFETCH(QByteArray, sql);
        const QString path = freshPath();
        QVERIFY(rawExec(path, sql.constData()));
        const QByteArray before = readAll(path);
        QVERIFY(!before.isEmpty());
        const QStringList filesBefore = siblingsOf(path);
        for (RunStore::Mode mode : {RunStore::Mode::ReadWrite, RunStore::Mode::ReadOnly}) {
            QString error;
            QVERIFY(!RunStore::open(path, mode, &error));
            QVERIFY2(error.contains(QStringLiteral("foreign database")), qPrintable(error));
            QVERIFY(error.contains(QStringLiteral("left untouched")));
            QCOMPARE(readAll(path), before);
            QCOMPARE(siblingsOf(path), filesBefore);
        }
    }

    void refusesNewerSchema()
    {
        const QString path = makeKilnDatabase();
        const int newer = RunStore::schemaVersion() + 1;
        QVERIFY(rawExec(path, QByteArray("PRAGMA user_version = " + QByteArray::number(newer) +
                                         "; CREATE TABLE from_the_future (x);")
                                  .constData()));
        const QByteArray before = readAll(path);
        const QStringList filesBefore = siblingsOf(path);
        for (RunStore::Mode mode : {RunStore::Mode::ReadWrite, RunStore::Mode::ReadOnly}) {
            QString error;
            QVERIFY(!RunStore::open(path, mode, &error));
            const QString expected =
                QStringLiteral("created by a newer Kiln (schema %1, this build supports %2)")
                    .arg(newer)
                    .arg(RunStore::schemaVersion());
            QVERIFY2(error.contains(expected), qPrintable(error));
            QVERIFY(error.contains(QStringLiteral("left untouched")));
            QCOMPARE(readAll(path), before);
            QCOMPARE(siblingsOf(path), filesBefore);
        }
    }

    void oddFileNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("spaces") << QStringLiteral("my runs/work shop.kiln");
        QTest::newRow("uri characters") << QStringLiteral("a?b#c%20d&e=f.kiln");
        QTest::newRow("unicode") << QStringLiteral("données/ランタイム.kiln");
    }

    void oddFileNames()
    {
        // The inspection opens files through a URI: names must survive the encoding.
        QFETCH(QString, name);
        const QString path = m_dir.filePath(name);
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        {
            auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            RunRecord run = sampleRun();
            QVERIFY(store->createRun(run) > 0);
        }
        QString error;
        auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->runs().size(), 1);
        store.reset();
        writeAll(path, "not a database at all, but long enough to have a header of one hundred "
                       "bytes, which is what SQLite would read first");
        QVERIFY(!RunStore::open(path, RunStore::Mode::ReadWrite, &error));
        QVERIFY2(error.contains(QStringLiteral("not a SQLite database")), qPrintable(error));
    }

    void refusesDirectory()
    {
        QString error;
        QVERIFY(!RunStore::open(m_dir.path(), RunStore::Mode::ReadWrite, &error));
        QVERIFY(error.contains(QStringLiteral("not a regular file")));
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
