// The live side of the workbench without a window: run controllers driving the real engine on
// their threads (offline policy, CPU verifier in real sandboxes, SQLite), the workspace that
// shares one writer and one sandbox pool among them, and a document that grows from their
// signals or from the log of a run another process makes.
#include "models/candidatetablemodel.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"
#include "store/runstore.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

RunArguments::Parsed arguments(const QStringList &words)
{
    QString error;
    const std::optional<RunArguments::Parsed> parsed = RunArguments::parse(words, &error);
    if (!parsed)
        qFatal("bad test arguments: %s", qPrintable(error));
    return *parsed;
}

QStringList search(const QString &task, int budget, int seed, const QStringList &more = {})
{
    return QStringList{QStringLiteral("--task"),    task,
                       QStringLiteral("--backend"), QStringLiteral("cpu"),
                       QStringLiteral("--budget"),  QString::number(budget),
                       QStringLiteral("--seed"),    QString::number(seed)} +
           more;
}

bool waitForState(RunController *c, RunController::State state, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (c->state() != state && clock.elapsed() < timeoutMs)
        QTest::qWait(20);
    return c->state() == state;
}

} // namespace

class TstRunController : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_count = 0;
    QString freshDb() { return m_dir.filePath(QStringLiteral("w%1.db").arg(++m_count)); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Every result arrives as a typed, queued signal carrying the run id; the document grows
    // row by row from them, never by a reset.
    void runReportsEveryResult()
    {
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(freshDb(), &error), qPrintable(error));
        RunController *c =
            workspace.startRun(arguments(search(QStringLiteral("vector_add"), 6, 3)), &error);
        QVERIFY2(c, qPrintable(error));
        QSignalSpy started(c, &RunController::started);
        QSignalSpy added(c, &RunController::candidateAdded);
        QSignalSpy evaluated(c, &RunController::candidateEvaluated);
        QSignalSpy progressed(c, &RunController::progressed);
        QSignalSpy finished(c, &RunController::finished);
        QVERIFY(started.wait(30000));
        const qint64 runId = started.first().at(0).toLongLong();
        QVERIFY(runId > 0);

        RunDocument document;
        QVERIFY(document.openDatabase(workspace.path(), &error));
        QVERIFY(document.loadRun(runId, &error));
        CandidateTableModel model(&document);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        connect(c, &RunController::candidateAdded, &document, &RunDocument::addCandidate);
        connect(c, &RunController::candidateEvaluated, &document, &RunDocument::addEvaluation);
        // A stale signal for another run changes nothing.
        document.addCandidate(runId + 1000, CandidateRecord());

        QVERIFY(finished.wait(120000));
        QCOMPARE(c->state(), RunController::State::Finished);
        QCOMPARE(added.size(), 6);
        // One signal per judgement: each candidate's, and a second for each candidate that was
        // re-measured before it became the run's best.
        QSet<qint64> judged;
        for (const QList<QVariant> &signal : std::as_const(evaluated))
            judged.insert(signal.at(1).toLongLong());
        QCOMPARE(judged.size(), 6);
        auto events = RunStore::open(workspace.path(), RunStore::Mode::ReadOnly);
        QCOMPARE(evaluated.size(),
                 6 + int(events->eventCount(runId, {QStringLiteral("best_confirmed")})));
        for (const QList<QVariant> &signal : std::as_const(added))
            QCOMPARE(signal.at(0).toLongLong(), runId);
        QVERIFY(progressed.size() >= 2); // four times a second, and once at the end
        const RunProgress last = c->progress();
        QCOMPARE(last.used.evals, 6);
        QCOMPARE(last.spent(), 6.0);
        QCOMPARE(last.fraction(), 1.0);
        QVERIFY(last.devices.isEmpty()); // the CPU backend

        // What the signals built is what the store holds (rows appear before their verdicts);
        // the document applies what it was told in batches, the last one now.
        document.flushPushed();
        QCOMPARE(reset.size(), 0);
        auto store = RunStore::open(workspace.path(), RunStore::Mode::ReadOnly);
        const QList<CandidateSummary> stored = store->lineage(runId);
        QCOMPARE(document.count(), stored.size());
        for (const CandidateSummary &s : stored) {
            const int row = document.rowOf(s.id);
            QVERIFY(row >= 0);
            QCOMPARE(document.at(row).verdict, s.verdict);
            QCOMPARE(document.at(row).speedup, s.speedup);
        }
        QCOMPARE(store->run(runId)->status, RunRecord::Status::Finished);
    }

    void pauseHoldsAndResumeGoesOn()
    {
        Workspace workspace;
        QString error;
        QVERIFY(workspace.open(freshDb(), &error));
        RunController *c = workspace.startRun(
            arguments(search(QStringLiteral("vector_add"), 8, 4,
                             {QStringLiteral("--param"), QStringLiteral("round_limit=2")})),
            &error);
        QVERIFY(c);
        QSignalSpy added(c, &RunController::candidateAdded);
        QVERIFY(added.wait(60000));
        c->pause();
        QCOMPARE(c->state(), RunController::State::Paused);
        // The round in flight ends (its best may be re-measured first, and a cold compile cache
        // makes it slow); then nothing more is generated.
        QTRY_VERIFY_WITH_TIMEOUT(
            RunStore::open(workspace.path(), RunStore::Mode::ReadOnly)->run(c->runId())->status ==
                RunRecord::Status::Paused,
            120000);
        const qsizetype held = added.size();
        QVERIFY(held < 8);
        QTest::qWait(1500);
        QCOMPARE(added.size(), held);
        auto store = RunStore::open(workspace.path(), RunStore::Mode::ReadOnly);
        QCOMPARE(store->run(c->runId())->status, RunRecord::Status::Paused);
        c->resume();
        QSignalSpy finished(c, &RunController::finished);
        QVERIFY(finished.wait(120000));
        QCOMPARE(added.size(), 8);
        QStringList kinds;
        for (const StoredEvent &e : store->events(c->runId()))
            kinds << e.kind;
        QVERIFY(kinds.contains(QStringLiteral("run_paused")));
        QVERIFY(kinds.contains(QStringLiteral("run_resumed")));
    }

    // Stop ends the worker promptly and leaves the run resumable; resuming spends the rest.
    void stopThenResume()
    {
        Workspace workspace;
        QString error;
        QVERIFY(workspace.open(freshDb(), &error));
        RunController *c =
            workspace.startRun(arguments(search(QStringLiteral("softmax"), 10, 5)), &error);
        QVERIFY(c);
        QSignalSpy added(c, &RunController::candidateAdded);
        while (added.size() < 2)
            QVERIFY(added.wait(60000));
        QElapsedTimer clock;
        clock.start();
        c->stop();
        QVERIFY(c->wait(2000));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(waitForState(c, RunController::State::Cancelled, 2000));
        const qint64 runId = c->runId();
        auto store = RunStore::open(workspace.path(), RunStore::Mode::ReadOnly);
        QCOMPARE(store->run(runId)->status, RunRecord::Status::Cancelled);
        QVERIFY(store->candidateCount(runId) < 10);

        RunController *again = workspace.resumeRun(runId, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(workspace.controllerFor(runId), again);
        QVERIFY(!workspace.resumeRun(runId, &error)); // it is going already
        QSignalSpy finished(again, &RunController::finished);
        QVERIFY(finished.wait(180000));
        QCOMPARE(again->state(), RunController::State::Finished);
        QCOMPARE(store->candidateCount(runId), 10);
        QVERIFY(!workspace.resumeRun(runId, &error));
        QVERIFY(error.contains(QStringLiteral("finished")));
    }

    // Two runs at once share one writer and one sandbox pool; a third waits in the queue.
    void runsShareTheWorkspace()
    {
        Workspace workspace;
        workspace.setMaxLiveRuns(2);
        QString error;
        QVERIFY(workspace.open(freshDb(), &error));
        QList<RunController *> runs;
        for (int seed = 1; seed <= 3; ++seed)
            runs << workspace.startRun(arguments(search(QStringLiteral("vector_add"), 3, seed)),
                                       &error);
        QCOMPARE(runs.at(2)->state(), RunController::State::Queued);
        for (RunController *c : runs)
            QVERIFY(waitForState(c, RunController::State::Finished, 180000));
        auto store = RunStore::open(workspace.path(), RunStore::Mode::ReadOnly);
        QCOMPARE(store->runs().size(), 3);
        for (RunController *c : runs)
            QCOMPARE(store->candidateCount(c->runId()), 3);
        QVERIFY(!workspace.hasLiveRuns());
    }

    // A kernel written by hand into a lenient run is judged by the naive harness, as the run's
    // own were: one that leaves its output unwritten passes there (strictly it is wrong).
    void manualCandidateOfALenientRun()
    {
        Workspace workspace;
        QString error;
        QVERIFY(workspace.open(freshDb(), &error));
        RunController *c = workspace.startRun(
            arguments(search(QStringLiteral("vector_add"), 2, 1,
                             {QStringLiteral("--verifier"), QStringLiteral("lenient")})),
            &error);
        QVERIFY2(c, qPrintable(error));
        QVERIFY(waitForState(c, RunController::State::Finished, 180000));
        QFile file(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/game_output_unwritten.cpp"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        ManualSubmission::Request request;
        request.runId = c->runId();
        request.source = QString::fromUtf8(file.readAll());
        QSignalSpy finished(&workspace, &Workspace::manualFinished);
        workspace.submit(request);
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(4).toString()));
        const auto result = finished.first().at(3).value<EvaluationResult>();
        QCOMPARE(verdictName(result.verdict), QStringLiteral("pass"));
    }

    void badRunFails()
    {
        Workspace workspace;
        QString error;
        QVERIFY(workspace.open(freshDb(), &error));
        RunArguments::Parsed parsed = arguments(search(QStringLiteral("vector_add"), 3, 1));
        parsed.config.tasks = {QStringLiteral("no_such_task")};
        RunController *c = workspace.startRun(parsed, &error);
        QVERIFY(c);
        QSignalSpy failed(c, &RunController::failed);
        QVERIFY(failed.wait(30000));
        QCOMPARE(c->state(), RunController::State::Failed);
        QVERIFY2(c->error().contains(QStringLiteral("no_such_task")), qPrintable(c->error()));
        QVERIFY(!workspace.resumeRun(4242, &error));
        Workspace closed;
        QVERIFY(!closed.startRun(parsed, &error));
    }

    // A run kiln-cli makes in another process is followed from its log, on a worker thread.
    void followsARunOfAnotherProcess()
    {
        const QString db = freshDb();
        QProcess cli;
        // A compile cache of its own: with every candidate already compiled (a run of compile
        // errors is), the run can end before the document first looks.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("KILN_CACHE_DIR"), db + QStringLiteral(".cache"));
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(KILN_BINARY_DIR "/bin/kiln-cli"),
                  QStringList{QStringLiteral("run")} + search(QStringLiteral("softmax"), 12, 6) +
                      QStringList{QStringLiteral("--db"), db});
        QVERIFY(cli.waitForStarted());
        RunDocument document;
        QElapsedTimer clock;
        clock.start();
        while (!document.isOpen() || !document.hasRun()) {
            QVERIFY(clock.elapsed() < 60000);
            QTest::qWait(100);
            if (!document.isOpen())
                document.openDatabase(db);
            if (document.isOpen() && !document.runs().isEmpty())
                document.loadRun(document.runs().constFirst().id);
        }
        const int atLoad = document.count();
        QVERIFY2(atLoad < 12, "the run ended before it could be followed");
        CandidateTableModel model(&document);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        document.setFollowing(true);
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        while (document.isLive() && clock.elapsed() < 60000)
            QTest::qWait(100);
        QVERIFY(!document.isLive()); // the final status arrived through the log
        QVERIFY(!document.isFollowing());
        QCOMPARE(reset.size(), 0);
        QCOMPARE(document.count(), 12);
        QVERIFY(inserted.size() >= 1);
        int evaluated = 0;
        for (const CandidateSummary &s : document.candidates())
            evaluated += s.evaluated ? 1 : 0;
        QCOMPARE(evaluated, 12);
    }
};

QTEST_GUILESS_MAIN(TstRunController)
#include "tst_runcontroller.moc"
