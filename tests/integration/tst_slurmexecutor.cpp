// --executor slurm against a real single-node Slurm: munged, slurmctld and slurmd started by
// scripts/slurm-testbed.sh as root in a temporary folder, and the real kiln-cli on both sides
// (the run, and the `kiln-cli worker` jobs sbatch starts).
#include "engine/runarguments.h"
#include "kilncli.h"
#include "models/runcontroller.h"
#include "models/workspace.h"
#include "runlineage.h"
#include "store/runstore.h"
#include "verifier/screen/flagcatalog.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <unistd.h>

using namespace kiln;
using namespace Qt::StringLiterals;
using test::cli;
using test::runCli;

namespace {

QString testbed()
{
    return QStringLiteral(KILN_SOURCE_DIR "/scripts/slurm-testbed.sh");
}

// sample index -> "verdict flag,flag" for every evaluated candidate of a run. Flags of the
// timing stage are left out, and a candidate flagged by them alone counts as a pass: they judge
// measured times, which the load on the machine moves (a busy CI host once flagged an honest
// candidate timer_inconsistent in one of the two runs). Everything else must agree exactly.
QMap<int, QString> verdicts(const QString &db, qint64 runId)
{
    QMap<int, QString> rows;
    auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
    if (!store)
        return rows;
    const QMap<qint64, EvaluationResult> results = store->evaluationsForRun(runId);
    for (const CandidateRecord &c : store->candidates(runId)) {
        if (!results.contains(c.id))
            continue;
        QStringList flags;
        bool blocking = false;
        for (const CheatFlag &f : results[c.id].flags) {
            const FlagInfo *info = FlagCatalog::find(f.id);
            if (info && info->stage == u"timing"_s)
                continue;
            flags << f.id;
            blocking = blocking || f.blocking;
        }
        flags.sort();
        Verdict verdict = results[c.id].verdict;
        if (verdict == Verdict::Flagged && !blocking)
            verdict = Verdict::Pass;
        rows.insert(c.sampleIndex, verdictName(verdict) + u' ' + flags.join(u','));
    }
    return rows;
}

QList<EvaluationResult> evaluations(const QString &db)
{
    auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
    return store ? store->evaluationsForRun(1).values() : QList<EvaluationResult>();
}

} // namespace

class TestSlurmExecutor : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(cli()), "kiln-cli is not built");
        if (::geteuid() != 0)
            QSKIP("the Slurm testbed runs its daemons as root");
        for (const char *tool : {"munged", "slurmctld", "slurmd", "sbatch"}) {
            if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty() &&
                QStandardPaths::findExecutable(QString::fromLatin1(tool), {u"/usr/sbin"_s})
                    .isEmpty())
                QSKIP("slurm-wlm and munge are not installed (scripts/install-deps.sh)");
        }
        QVERIFY(m_cluster.isValid());
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
        QProcess start;
        start.start(testbed(), {u"start"_s, m_cluster.path()});
        QVERIFY(start.waitForFinished(90000));
        QVERIFY2(start.exitCode() == 0, start.readAllStandardError().constData());
        qputenv("SLURM_CONF", m_cluster.filePath(u"slurm.conf"_s).toLocal8Bit());
        m_started = true;
    }

    void cleanupTestCase()
    {
        if (!m_started)
            return;
        QProcess stop;
        stop.start(testbed(), {u"stop"_s, m_cluster.path()});
        stop.waitForFinished(30000);
    }

    // The same seeds on both executors: the same candidates, and the same verdict and flags for
    // each. Every Slurm evaluation names the node and the job it ran in.
    void sameCandidatesAndVerdictsAsLocal()
    {
        QTemporaryDir dir;
        const QStringList common{
            u"run"_s, u"--task"_s, u"vector_add"_s, u"--budget"_s, u"8"_s, u"--seed"_s, u"1"_s,
            u"--verifier-seed"_s, u"11"_s, u"--param"_s, u"gaming_rate=0.3"_s,
            // One evaluation per candidate on both executors: no
            // re-measurement of a best, no reused judgement.
            u"--param"_s, u"confirm=off"_s, u"--param"_s, u"duplicates=remeasure"_s, u"--json"_s};
        const QString localDb = dir.filePath(u"local.db"_s);
        const QString slurmDb = dir.filePath(u"slurm.db"_s);
        const auto local = runCli(common + QStringList{u"--db"_s, localDb});
        QVERIFY2(local.status == 0, local.err.constData());
        const auto slurm =
            runCli(common + QStringList{u"--db"_s, slurmDb, u"--executor"_s, u"slurm"_s,
                                        u"--slurm-partition"_s, u"kiln"_s, u"--slurm-max-jobs"_s,
                                        u"2"_s, u"--slurm-cpus"_s, u"1"_s});
        QVERIFY2(slurm.status == 0, slurm.err.constData());
        QVERIFY2(slurm.err.contains("submitted"), slurm.err.constData());
        QCOMPARE(runLineage(slurmDb, 1), runLineage(localDb, 1));
        const QMap<int, QString> expected = verdicts(localDb, 1);
        QCOMPARE(expected.size(), 8);
        QStringList kinds;
        for (const QString &row : expected)
            kinds << row.section(u' ', 0, 0);
        kinds.removeDuplicates();
        QVERIFY2(kinds.size() >= 3, qPrintable(kinds.join(u','))); // pass, wrong, flagged, ...
        QCOMPARE(verdicts(slurmDb, 1), expected);
        const QList<EvaluationResult> results = evaluations(slurmDb);
        QCOMPARE(results.size(), 8);
        QRegularExpression job(u"^\\d+$"_s);
        for (const EvaluationResult &r : results) {
            const StageResult *where = r.stage(u"cluster"_s);
            QVERIFY2(where, "every Slurm evaluation records where it ran");
            QCOMPARE(where->data.value(u"node"_s).toString(), QSysInfo::machineHostName());
            QVERIFY(job.match(where->data.value(u"job"_s).toString()).hasMatch());
        }
        // A clean session leaves nothing behind in the spool.
        QCOMPARE(QDir(slurmDb + u".spool"_s).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
                 QStringList());
    }

    // scancel of the worker job that holds an item: the item goes back to the queue, another
    // job evaluates it, and each candidate is counted once.
    void scancelMidEvaluationRequeues()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        QProcess run;
        run.setProcessChannelMode(QProcess::SeparateChannels);
        run.start(cli(), {u"run"_s,
                          u"--task"_s,
                          u"matmul"_s,
                          u"--budget"_s,
                          u"6"_s,
                          u"--seed"_s,
                          u"2"_s,
                          u"--param"_s,
                          u"confirm=off"_s,
                          u"--param"_s,
                          u"duplicates=remeasure"_s,
                          u"--db"_s,
                          db,
                          u"--json"_s,
                          u"--executor"_s,
                          u"slurm"_s,
                          u"--slurm-partition"_s,
                          u"kiln"_s,
                          u"--slurm-max-jobs"_s,
                          u"1"_s,
                          u"--slurm-cpus"_s,
                          u"1"_s});
        QVERIFY(run.waitForStarted());
        const QString cancelled = cancelFirstHolder(run);
        QVERIFY2(!cancelled.isEmpty(), "no worker was seen holding an item");
        QVERIFY(run.waitForFinished(300000));
        const QByteArray err = run.readAllStandardError();
        QVERIFY2(run.exitCode() == 0, err.constData());
        QVERIFY2(err.contains("job " + cancelled.toLatin1() + " ended: CANCELLED"),
                 err.constData());
        QVERIFY2(QRegularExpression(u"[1-9]\\d* item\\(s\\) requeued"_s)
                     .match(QString::fromUtf8(err))
                     .hasMatch(),
                 err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(run.readAllStandardOutput()).object();
        QCOMPARE(doc.value(u"candidates"_s).toInt(), 6);
        const QJsonObject used = doc.value(u"budget_used"_s).toObject();
        const QList<EvaluationResult> results = evaluations(db);
        QCOMPARE(used.value(u"evals"_s).toInt(), results.size()); // none counted twice
        QCOMPARE(results.size(), 6);
        int retried = 0;
        for (const EvaluationResult &r : results) {
            const StageResult *where = r.stage(u"cluster"_s);
            QVERIFY(where);
            if (where->data.value(u"attempts"_s).toInt() > 1) {
                ++retried;
                QVERIFY(where->data.value(u"job"_s).toString() != cancelled);
            }
        }
        QVERIFY(retried >= 1);
    }

    // The window's path: the launcher's words through Workspace::startRun, judged by worker jobs,
    // and the workers cancelled once the run has finished.
    void windowRunUsesTheCluster()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(u"w.db"_s), &error), qPrintable(error));
        const std::optional<RunArguments::Parsed> parsed = RunArguments::parse(
            {u"--task"_s, u"vector_add"_s, u"--backend"_s, u"cpu"_s, u"--budget"_s, u"4"_s,
             u"--param"_s, u"confirm=off"_s, u"--param"_s, u"duplicates=remeasure"_s,
             u"--executor"_s, u"slurm"_s, u"--slurm-partition"_s, u"kiln"_s, u"--slurm-max-jobs"_s,
             u"1"_s, u"--slurm-cpus"_s, u"1"_s},
            &error);
        QVERIFY2(parsed, qPrintable(error));
        RunController *c = workspace.startRun(*parsed, &error);
        QVERIFY2(c, qPrintable(error));
        QSignalSpy finished(c, &RunController::finished);
        QSignalSpy evaluated(c, &RunController::candidateEvaluated);
        QVERIFY(finished.wait(180000));
        QCOMPARE(evaluated.size(), 4);
        for (const QList<QVariant> &signal : std::as_const(evaluated)) {
            const auto result = signal.at(2).value<EvaluationResult>();
            QVERIFY2(result.stage(u"cluster"_s), qPrintable(result.summary));
        }
        // No worker job of ours is left once the run is over.
        QTRY_VERIFY_WITH_TIMEOUT(queueIsEmpty(), 15000);
    }

    // Workers that cannot start on the node (here: no sandbox where they look) stop the run
    // after three jobs, with the worker's own message; nothing is stored as a verdict.
    void workersThatCannotStartStopTheRun()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"KILN_SANDBOX"_s, dir.filePath(u"no-such-sandbox"_s));
        QElapsedTimer timer;
        timer.start();
        const auto o =
            runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--budget"_s, u"4"_s, u"--db"_s, db,
                    u"--json"_s, u"--executor"_s, u"slurm"_s, u"--slurm-partition"_s, u"kiln"_s,
                    u"--slurm-max-jobs"_s, u"1"_s, u"--slurm-cpus"_s, u"1"_s},
                   180000, environment);
        QVERIFY2(o.status == 0, o.err.constData());
        QVERIFY2(o.err.contains("Slurm cannot run Kiln's workers"), o.err.constData());
        QVERIFY2(o.err.contains("before its worker started"), o.err.constData());
        QVERIFY2(o.err.contains("kiln-sandbox not found"), o.err.constData());
        QVERIFY(timer.elapsed() < 120000);
        QCOMPARE(evaluations(db).size(), 0);
        const QJsonObject doc = o.json();
        QCOMPARE(doc.value(u"budget_used"_s).toObject().value(u"evals"_s).toInt(), 0);
        QCOMPARE(doc.value(u"status"_s).toString(), u"cancelled"_s); // resumable
    }

    // A partition Slurm does not know is refused before anything is stored.
    void unknownPartitionIsRefusedUpFront()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        const auto o =
            runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--budget"_s, u"2"_s, u"--db"_s, db,
                    u"--executor"_s, u"slurm"_s, u"--slurm-partition"_s, u"no_such_partition"_s});
        QCOMPARE(o.status, 1);
        QVERIFY2(o.err.contains("Slurm would not run Kiln's workers"), o.err.constData());
        QVERIFY2(o.err.contains("partition"), o.err.constData());
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(!store || store->runs().isEmpty());
    }

private:
    static bool queueIsEmpty()
    {
        QProcess squeue;
        squeue.start(u"squeue"_s, {u"--noheader"_s, u"--format=%i"_s});
        return squeue.waitForFinished(10000) && squeue.readAllStandardOutput().trimmed().isEmpty();
    }

    // Watches the run's spool session until a worker holds an item, then scancels that worker's
    // job; returns the job id ("" when none was seen within two minutes).
    static QString cancelFirstHolder(QProcess &run)
    {
        QString session;
        QByteArray seen;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 120000 && run.state() == QProcess::Running) {
            run.waitForReadyRead(20);
            seen += run.readAllStandardError();
            const QRegularExpressionMatch m =
                QRegularExpression(u"spool session (\\S+)"_s).match(QString::fromUtf8(seen));
            if (m.hasMatch())
                session = m.captured(1);
            if (session.isEmpty())
                continue;
            const QDir claimed(session + u"/claimed"_s);
            for (const QString &job : claimed.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                const QStringList held =
                    QDir(claimed.filePath(job)).entryList({u"*.json"_s}, QDir::Files);
                if (held.isEmpty())
                    continue;
                // Still held a moment later: an evaluation under way, not one just finishing.
                QThread::msleep(150);
                if (!QFileInfo::exists(claimed.filePath(job + u'/' + held.first())))
                    continue;
                QProcess::execute(u"scancel"_s, {job});
                return job;
            }
            QThread::msleep(5);
        }
        return {};
    }

    QTemporaryDir m_cluster;
    bool m_started = false;
};

QTEST_GUILESS_MAIN(TestSlurmExecutor)
#include "tst_slurmexecutor.moc"
