// End to end through the real kiln-cli: offline policy, CPU verifier in sandboxes, SQLite store.
#include "kilncli.h"
#include "runlineage.h"
#include "store/runstore.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

using namespace kiln;

using Outcome = test::CliOutcome;
using test::cli;
using test::runCli;

class TestSearchRun : public QObject
{
    Q_OBJECT

    // Run 1's rounds as recorded, one line each: "round task first-index requests".
    static QStringList roundsOf(const QString &db)
    {
        QStringList rounds;
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        for (const StoredEvent &e : store ? store->events(1) : QList<StoredEvent>())
            if (e.kind == QLatin1String("round_started"))
                rounds.append(
                    QStringLiteral("%1 %2 %3 %4")
                        .arg(e.payload.value(QStringLiteral("round")).toInt())
                        .arg(e.payload.value(QStringLiteral("task")).toString())
                        .arg(e.payload.value(QStringLiteral("first_index")).toInt())
                        .arg(e.payload.value(QStringLiteral("requests")).toArray().size()));
        return rounds;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(cli()), "kiln-cli is not built");
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
    }

    void countBudgetIsExactAndStored()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.db"));
        const Outcome o = runCli(
            {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
             QStringLiteral("--strategy"), QStringLiteral("beam"), QStringLiteral("--param"),
             QStringLiteral("beams=2"), QStringLiteral("--param"), QStringLiteral("children=2"),
             QStringLiteral("--budget"), QStringLiteral("7"), QStringLiteral("--seed"),
             QStringLiteral("3"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonObject doc = o.json();
        QVERIFY2(!doc.isEmpty(), "stdout must hold exactly one JSON document");
        QCOMPARE(doc.value(QStringLiteral("candidates")).toInt(), 7);
        const QJsonObject used = doc.value(QStringLiteral("budget_used")).toObject();
        QCOMPARE(used.value(QStringLiteral("evals")).toInt() <= 7, true);
        QCOMPARE(used.value(QStringLiteral("samples")).toInt(), 7);
        QVERIFY(used.value(QStringLiteral("prompt_tokens")).toDouble() > 0);
        int verdicts = 0;
        const QJsonObject v = doc.value(QStringLiteral("verdicts")).toObject();
        for (const QString &key :
             {QStringLiteral("pass"), QStringLiteral("wrong"), QStringLiteral("flagged"),
              QStringLiteral("compile_error"), QStringLiteral("crash"), QStringLiteral("timeout"),
              QStringLiteral("resource")}) {
            QVERIFY2(v.contains(key), qPrintable(key));
            verdicts += v.value(key).toInt();
        }
        QCOMPARE(verdicts, used.value(QStringLiteral("evals")).toInt());

        const qint64 runId = qint64(doc.value(QStringLiteral("run_id")).toDouble());
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        QCOMPARE(store->run(runId)->status, RunRecord::Status::Finished);
        int started = 0, finished = 0;
        for (const StoredEvent &e : store->events(runId)) {
            started += e.kind == QLatin1String("round_started");
            finished += e.kind == QLatin1String("round_finished");
        }
        QVERIFY(started >= 2);
        QCOMPARE(finished, started);
        // Beam refines: beyond the first round every candidate has a parent from this run.
        int refined = 0;
        for (const CandidateRecord &c : store->candidates(runId))
            refined += c.parent.has_value();
        QVERIFY(refined > 0);

        const Outcome report = runCli(
            {QStringLiteral("report"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QCOMPARE(report.status, 0);
        const QJsonArray runs = report.json().value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs[0].toObject().value(QStringLiteral("curve")).toArray().size(), 7);

        const Outcome csv =
            runCli({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                    QString::number(runId), QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(csv.status, 0);
        QCOMPARE(csv.out.count('\n'), 8); // header + one row per candidate

        // A person joins the search: a hand-written child of the first candidate.
        const Outcome manual = runCli(
            {QStringLiteral("submit"), QStringLiteral("--db"), db, QStringLiteral("--run"),
             QString::number(runId), QStringLiteral("--parent"),
             QString::number(store->candidates(runId).first().id), QStringLiteral("--json"),
             QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp")});
        QVERIFY2(manual.status == 0, manual.err.constData());
        QCOMPARE(manual.json().value(QStringLiteral("verdict")).toString(), QStringLiteral("pass"));
        auto after = RunStore::open(db, RunStore::Mode::ReadOnly); // sees the new commit
        const auto added = after->candidate(
            qint64(manual.json().value(QStringLiteral("candidate_id")).toDouble()));
        QVERIFY(added);
        QCOMPARE(added->operation, Operation::Manual);
        QCOMPARE(added->parent, std::optional<qint64>(store->candidates(runId).first().id));
    }

    // A count budget is spent in rounds of at most round_limit requests, so greedy best-first
    // steers: it refines refinements instead of expanding its first samples all at once.
    void roundsAreCappedOnCountBudgets()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("g.db"));
        const Outcome o =
            runCli({QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
                    QStringLiteral("--strategy"), QStringLiteral("greedy"),
                    QStringLiteral("--param"), QStringLiteral("round_limit=2"),
                    QStringLiteral("--budget"), QStringLiteral("14"), QStringLiteral("--seed"),
                    QStringLiteral("5"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(o.status == 0, o.err.constData());
        const qint64 runId = qint64(o.json().value(QStringLiteral("run_id")).toDouble());
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        int rounds = 0;
        for (const StoredEvent &e : store->events(runId)) {
            if (e.kind != QLatin1String("round_started"))
                continue;
            ++rounds;
            QVERIFY(e.payload.value(QStringLiteral("requests")).toArray().size() <= 2);
        }
        QVERIFY(rounds >= 7);
        QHash<qint64, qint64> parentOf;
        const QList<CandidateRecord> candidates = store->candidates(runId);
        QCOMPARE(candidates.size(), 14);
        for (const CandidateRecord &c : candidates)
            if (c.parent)
                parentOf.insert(c.id, *c.parent);
        int deepest = 0;
        for (const CandidateRecord &c : candidates) {
            int depth = 0;
            for (qint64 id = c.id; parentOf.contains(id); id = parentOf.value(id))
                ++depth;
            deepest = std::max(deepest, depth);
        }
        QVERIFY2(deepest >= 2, "greedy never refined a refinement");
    }

    void killedRunResumesToTheSameCandidates()
    {
        QTemporaryDir dir;
        const QString killedDb = dir.filePath(QStringLiteral("killed.db"));
        const QString wholeDb = dir.filePath(QStringLiteral("whole.db"));
        // Refinement that follows the latest candidate decides without looking at timings,
        // so its lineage is a pure function of the seed.
        const QStringList args{QStringLiteral("run"),
                               QStringLiteral("--task"),
                               QStringLiteral("softmax"),
                               QStringLiteral("--strategy"),
                               QStringLiteral("refine"),
                               QStringLiteral("--param"),
                               QStringLiteral("width=2"),
                               QStringLiteral("--param"),
                               QStringLiteral("turns=8"),
                               QStringLiteral("--param"),
                               QStringLiteral("follow=latest"),
                               QStringLiteral("--budget"),
                               QStringLiteral("16"),
                               QStringLiteral("--seed"),
                               QStringLiteral("11"),
                               QStringLiteral("--json")};
        QProcess victim;
        victim.start(cli(), args + QStringList{QStringLiteral("--db"), killedDb});
        QVERIFY(victim.waitForStarted());
        // Kill it once a few candidates are stored, mid-run.
        QElapsedTimer clock;
        clock.start();
        qint64 stored = 0;
        while (clock.elapsed() < 120000 && victim.state() == QProcess::Running) {
            QThread::msleep(100);
            if (auto store = RunStore::open(killedDb, RunStore::Mode::ReadOnly)) {
                if (store->runs().size() == 1)
                    stored = store->candidateCount(store->runs().first().id);
            }
            if (stored >= 4)
                break;
        }
        QVERIFY2(victim.state() == QProcess::Running, "the run finished before it could be killed");
        ::kill(pid_t(victim.processId()), SIGKILL);
        victim.waitForFinished();

        auto store = RunStore::open(killedDb, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const qint64 runId = store->runs().first().id;
        QVERIFY(store->candidateCount(runId) < 16);
        store.reset();

        const Outcome resumed =
            runCli({QStringLiteral("resume"), QStringLiteral("--db"), killedDb,
                    QStringLiteral("--run"), QString::number(runId), QStringLiteral("--json")});
        QVERIFY2(resumed.status == 0, resumed.err.constData());
        QCOMPARE(resumed.json().value(QStringLiteral("candidates")).toInt(), 16);

        const Outcome whole = runCli(args + QStringList{QStringLiteral("--db"), wholeDb});
        QVERIFY2(whole.status == 0, whole.err.constData());
        const QStringList resumedRows = runLineage(killedDb, runId);
        const QStringList wholeRows =
            runLineage(wholeDb, qint64(whole.json().value(QStringLiteral("run_id")).toDouble()));
        QString why;
        QVERIFY2(sameLineage(resumedRows, wholeRows, &why), qPrintable(why));
    }

    // The verifier's secret is the run's own, from the OS: the same --seed gives the same
    // candidates and different test inputs; --verifier-seed asks for identical inputs.
    void secretIsDrawnPerRun()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("secret.db"));
        const QStringList args{QStringLiteral("run"),
                               QStringLiteral("--task"),
                               QStringLiteral("vector_add"),
                               QStringLiteral("--backend"),
                               QStringLiteral("cpu"),
                               QStringLiteral("--budget"),
                               QStringLiteral("3"),
                               QStringLiteral("--seed"),
                               QStringLiteral("4"),
                               QStringLiteral("--db"),
                               db,
                               QStringLiteral("--json")};
        QList<qint64> runs;
        for (const QStringList &extra :
             {QStringList(), QStringList(),
              QStringList{QStringLiteral("--verifier-seed"), QStringLiteral("77")},
              QStringList{QStringLiteral("--verifier-seed"), QStringLiteral("77")}}) {
            const Outcome o = runCli(args + extra);
            QVERIFY2(o.status == 0, o.err.constData());
            runs << qint64(o.json().value(QStringLiteral("run_id")).toDouble());
        }
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QList<quint64> secrets;
        for (qint64 run : runs) {
            const std::optional<RunRecord> record = store->run(run);
            QVERIFY(record && record->verifierSecret);
            secrets << *record->verifierSecret;
        }
        QString why;
        QVERIFY2(sameLineage(runLineage(db, runs[0]), runLineage(db, runs[1]), &why),
                 qPrintable(why));
        QVERIFY(secrets[0] != secrets[1]); // same seed, different verifier inputs
        QCOMPARE(secrets[2], secrets[3]);  // on purpose
        QVERIFY(secrets[2] != secrets[0] && secrets[2] != secrets[1]);
        // Nothing derived from the run seed: it is 4 in every run.
        QCOMPARE(store->run(runs[0])->seed, store->run(runs[1])->seed);
    }

    void suiteSharesOneBudget_data()
    {
        QTest::addColumn<QString>("allocation");
        QTest::addColumn<QString>("suite");
        QTest::addColumn<int>("budget");
        const QString two = QStringLiteral("vector_add,transpose");
        QTest::newRow("even") << QStringLiteral("even") << two << 10;
        QTest::newRow("adaptive") << QStringLiteral("adaptive") << two << 10;
        // A probe share of 20 / 3 / 5 = 1.33 evaluations per task: its fractional remainder
        // once ended every task after one evaluation (3 of 20 spent).
        QTest::newRow("adaptive, fractional probe share")
            << QStringLiteral("adaptive") << QStringLiteral("vector_add,transpose,reduce_sum")
            << 20;
    }
    void suiteSharesOneBudget()
    {
        QFETCH(QString, allocation);
        QFETCH(QString, suite);
        QFETCH(int, budget);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("s.db"));
        const Outcome o = runCli(
            {QStringLiteral("run"), QStringLiteral("--suite"), suite, QStringLiteral("--strategy"),
             QStringLiteral("best-of-n"), QStringLiteral("--budget"), QString::number(budget),
             QStringLiteral("--param"), QStringLiteral("allocation=") + allocation,
             QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(o.status == 0, o.err.constData());
        QCOMPARE(o.json().value(QStringLiteral("candidates")).toInt(), budget);
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QMap<QString, int> perTask;
        for (const CandidateRecord &c : store->candidates(store->runs().first().id))
            perTask[c.task] += 1;
        QCOMPARE(perTask.size(), int(suite.count(QLatin1Char(',')) + 1));
        if (allocation == QLatin1String("even"))
            QCOMPARE(perTask.value(QStringLiteral("vector_add")), 5);
    }

    // Rounds of several tasks at once (tasks_at_once): planned together before any runs, recorded
    // in their order, and the same rounds and code as one at a time with an even allocation and
    // equal rounds. A run killed while its rounds run at once resumes them all, each round
    // recorded once.
    void suiteRoundsRunAtOnce()
    {
        QTemporaryDir dir;
        auto args = [&](int atOnce, const QString &db) {
            return QStringList{QStringLiteral("run"),
                               QStringLiteral("--suite"),
                               QStringLiteral("vector_add,transpose,reduce_sum"),
                               QStringLiteral("--strategy"),
                               QStringLiteral("best-of-n"),
                               QStringLiteral("--budget"),
                               QStringLiteral("12"),
                               QStringLiteral("--seed"),
                               QStringLiteral("5"),
                               QStringLiteral("--param"),
                               QStringLiteral("allocation=even"),
                               QStringLiteral("--param"),
                               QStringLiteral("round_limit=2"),
                               QStringLiteral("--param"),
                               QStringLiteral("confirm=off"),
                               QStringLiteral("--param"),
                               QStringLiteral("tasks_at_once=%1").arg(atOnce),
                               QStringLiteral("--db"),
                               db,
                               QStringLiteral("--json")};
        };
        const QString together = dir.filePath(QStringLiteral("together.db"));
        const QString oneByOne = dir.filePath(QStringLiteral("one.db"));
        for (const auto &[atOnce, db] : {std::pair{3, together}, std::pair{1, oneByOne}}) {
            const Outcome o = runCli(args(atOnce, db));
            QVERIFY2(o.status == 0, o.err.constData());
            QCOMPARE(o.json().value(QStringLiteral("candidates")).toInt(), 12);
        }
        const QStringList rounds = roundsOf(together);
        QCOMPARE(rounds.size(), 6);
        QCOMPARE(rounds, roundsOf(oneByOne));
        QString why;
        QVERIFY2(sameLineage(runLineage(together, 1), runLineage(oneByOne, 1), &why),
                 qPrintable(why));
        // The first three rounds started before the first one finished.
        QStringList kinds;
        for (const StoredEvent &e : RunStore::open(together, RunStore::Mode::ReadOnly)->events(1))
            if (e.kind.startsWith(QLatin1String("round_")))
                kinds.append(e.kind);
        QCOMPARE(kinds.mid(0, 4),
                 (QStringList{QStringLiteral("round_started"), QStringLiteral("round_started"),
                              QStringLiteral("round_started"), QStringLiteral("round_finished")}));

        // Killed once two candidates are stored: the first three rounds are all in flight.
        const QString killed = dir.filePath(QStringLiteral("killed.db"));
        QProcess victim;
        victim.start(cli(), args(3, killed));
        QVERIFY(victim.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 120000 && victim.state() == QProcess::Running) {
            QThread::msleep(20);
            auto store = RunStore::open(killed, RunStore::Mode::ReadOnly);
            if (store && store->runs().size() == 1 && store->candidateCount(1) >= 2)
                break;
        }
        QVERIFY2(victim.state() == QProcess::Running, "the run finished before it could be killed");
        ::kill(pid_t(victim.processId()), SIGKILL);
        victim.waitForFinished();
        const Outcome resumed =
            runCli({QStringLiteral("resume"), QStringLiteral("--db"), killed,
                    QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(resumed.status == 0, resumed.err.constData());
        QCOMPARE(resumed.json().value(QStringLiteral("candidates")).toInt(), 12);
        QCOMPARE(roundsOf(killed), rounds); // each round once, none asked again
        QVERIFY2(sameLineage(runLineage(killed, 1), runLineage(oneByOne, 1), &why),
                 qPrintable(why));
    }

    // kiln-cli profile on a CPU run: each profile says why there is none, is stored and
    // exported with its candidate, and the command fails; a candidate that is not there is a
    // usage error.
    void profileSaysWhyAndIsExported()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.db"));
        QCOMPARE(
            runCli({QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
                    QStringLiteral("--budget"), QStringLiteral("1"), QStringLiteral("--db"), db})
                .status,
            0);
        const Outcome o =
            runCli({QStringLiteral("profile"), QStringLiteral("--db"), db,
                    QStringLiteral("--candidate"), QStringLiteral("1"), QStringLiteral("--json")});
        QCOMPARE(o.status, 1);
        const QJsonArray profiles = o.json().value(QStringLiteral("profiles")).toArray();
        QCOMPARE(profiles.size(), 2);
        QCOMPARE(profiles[1].toObject().value(QStringLiteral("subject")).toString(),
                 QStringLiteral("reference"));
        for (const QJsonValue &profile : profiles)
            QVERIFY(profile.toObject()
                        .value(QStringLiteral("reason"))
                        .toString()
                        .contains(QStringLiteral("no hardware profiler for the cpu backend")));
        const Outcome exported = runCli({QStringLiteral("export"), QStringLiteral("--db"), db,
                                         QStringLiteral("--run"), QStringLiteral("1")});
        const QJsonArray candidates = QJsonDocument::fromJson(exported.out)
                                          .object()
                                          .value(QStringLiteral("candidates"))
                                          .toArray();
        QCOMPARE(candidates.first().toObject().value(QStringLiteral("profiles")).toArray().size(),
                 2);
        QCOMPARE(runCli({QStringLiteral("profile"), QStringLiteral("--db"), db,
                         QStringLiteral("--candidate"), QStringLiteral("99")})
                     .status,
                 2);
        QCOMPARE(runCli({QStringLiteral("profile"), QStringLiteral("--db"), db}).status, 2);
    }

    void badArgumentsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("no task") << QStringList{QStringLiteral("run")};
        QTest::newRow("unknown task")
            << QStringList{QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("nope")};
        QTest::newRow("unknown strategy") << QStringList{
            QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("softmax"),
            QStringLiteral("--strategy"), QStringLiteral("astar")};
        QTest::newRow("bad budget") << QStringList{
            QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("softmax"),
            QStringLiteral("--budget"), QStringLiteral("-3")};
        QTest::newRow("bad param") << QStringList{
            QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("softmax"),
            QStringLiteral("--param"), QStringLiteral("colour=blue")};
        QTest::newRow("param out of range") << QStringList{
            QStringLiteral("run"),        QStringLiteral("--task"), QStringLiteral("softmax"),
            QStringLiteral("--strategy"), QStringLiteral("beam"),   QStringLiteral("--param"),
            QStringLiteral("beams=0")};
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("tasks"), QStringLiteral("--frobnicate")};
        QTest::newRow("unknown command") << QStringList{QStringLiteral("dance")};
        QTest::newRow("report without db") << QStringList{QStringLiteral("report")};
        QTest::newRow("resume unknown run") << QStringList{
            QStringLiteral("resume"), QStringLiteral("--db"),
            QStringLiteral("/nonexistent/dir/x.db"), QStringLiteral("--run"), QStringLiteral("4")};
    }
    void badArgumentsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QTemporaryDir dir;
        QStringList withDb = arguments;
        if (arguments.first() == QLatin1String("run"))
            withDb << QStringLiteral("--db") << dir.filePath(QStringLiteral("x.db"));
        const Outcome o = runCli(withDb, 30000);
        QCOMPARE(o.status, 2);
        QVERIFY(o.out.isEmpty());
        const QList<QByteArray> lines = o.err.trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        QVERIFY(!lines.first().isEmpty());
    }

    void taskWithoutVariantSpaceIsRefused()
    {
        // vector_add under another name and without its variants: the offline policy has no
        // kernels to write for it, and says so before any run exists.
        QTemporaryDir dir;
        const QString task = dir.filePath(QStringLiteral("my_add"));
        QVERIFY(QDir().mkpath(task));
        for (const char *file : {"task.json", "reference.cpp", "reference.cu"}) {
            QFile in(QStringLiteral(KILN_SOURCE_DIR "/tasks/vector_add/") + QLatin1String(file));
            QVERIFY(in.open(QIODevice::ReadOnly));
            QFile out(task + QLatin1Char('/') + QLatin1String(file));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(in.readAll().replace("vector_add", "my_add"));
        }
        const QString db = dir.filePath(QStringLiteral("x.db"));
        const Outcome o =
            runCli({QStringLiteral("run"), QStringLiteral("--tasks-dir"), dir.path(),
                    QStringLiteral("--task"), QStringLiteral("my_add"), QStringLiteral("--budget"),
                    QStringLiteral("2"), QStringLiteral("--db"), db},
                   30000);
        QCOMPARE(o.status, 2);
        const QList<QByteArray> lines = o.err.trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().contains("my_add") && lines.first().contains("variant space"),
                 lines.first().constData());
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(!store || store->runs().isEmpty());
    }

    void tasksJsonFollowsTheContract()
    {
        const Outcome o = runCli({QStringLiteral("tasks"), QStringLiteral("--json")});
        QCOMPARE(o.status, 0);
        const QJsonArray tasks = o.json().value(QStringLiteral("tasks")).toArray();
        QCOMPARE(tasks.size(), 6);
        for (const QJsonValue &t : tasks) {
            const QJsonObject task = t.toObject();
            for (const char *key : {"name", "title", "backends", "signature", "shapes"})
                QVERIFY2(task.contains(QLatin1String(key)), key);
            QVERIFY(task.value(QStringLiteral("shapes")).toInt() >= 4);
        }
        const Outcome version = runCli({QStringLiteral("--version")});
        QCOMPARE(version.status, 0);
        QVERIFY(version.out.startsWith("kiln-cli "));
    }
};

QTEST_GUILESS_MAIN(TestSearchRun)
#include "tst_searchrun.moc"
