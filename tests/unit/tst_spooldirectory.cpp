// The spool's hand-overs (SpoolDirectory, WorkItem, WorkResult) and the Slurm settings, on a
// real folder: one holder per item even with workers racing, results read once, requeue.
#include "engine/cluster/slurmsettings.h"
#include "engine/cluster/spooldirectory.h"
#include "engine/runarguments.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>
#include <mutex>
#include <thread>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

WorkItem item(int n)
{
    WorkItem w;
    w.id = u"e%1"_s.arg(n, 8, 10, QLatin1Char('0'));
    w.task = u"vector_add"_s;
    w.backend = Backend::Cuda;
    w.source = u"// candidate %1"_s.arg(n);
    w.secret = 0xfedcba9876543210ULL; // above 2^53: must survive JSON
    return w;
}

} // namespace

class TestSpoolDirectory : public QObject
{
    Q_OBJECT

private slots:
    void workItemRoundTrips()
    {
        QString error;
        const std::optional<WorkItem> back = WorkItem::fromJson(item(7).toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->secret, 0xfedcba9876543210ULL);
        QCOMPARE(back->backend, Backend::Cuda);
        QCOMPARE(back->source, u"// candidate 7"_s);
        QJsonObject broken = item(7).toJson();
        broken.remove(u"secret"_s);
        QVERIFY(!WorkItem::fromJson(broken, &error));
        QVERIFY(error.contains(u"secret"_s));
        QVERIFY(!WorkItem::fromJson(QJsonObject{{u"format"_s, u"other"_s}}, &error));
        // The agents' tester shapes travel with the item; a worker of the spool's first version
        // would judge without them, so the version moved on and an old item is refused.
        WorkItem tested = item(8);
        tested.extraShapes = QJsonArray{QJsonObject{{u"n"_s, 7}}};
        const std::optional<WorkItem> shaped = WorkItem::fromJson(tested.toJson(), &error);
        QVERIFY2(shaped, qPrintable(error));
        QCOMPARE(shaped->extraShapes, tested.extraShapes);
        QVERIFY(!item(9).toJson().contains(u"extra_shapes"_s));
        QJsonObject old = item(9).toJson();
        old.insert(u"version"_s, 2);
        QVERIFY(!WorkItem::fromJson(old, &error));
        QVERIFY(error.contains(u"version 3"_s));
        // A KernelBench run's kernel language travels too (version 3): a worker judges its
        // candidates in the run's language.
        WorkItem triton = item(10);
        triton.language = u"triton"_s;
        const std::optional<WorkItem> inLanguage = WorkItem::fromJson(triton.toJson(), &error);
        QVERIFY2(inLanguage, qPrintable(error));
        QCOMPARE(inLanguage->language, u"triton"_s);
        QVERIFY(!item(11).toJson().contains(u"language"_s));
    }

    // Two workers race over 300 items: every item is claimed exactly once.
    void racingWorkersClaimEachItemOnce()
    {
        QTemporaryDir dir;
        const SpoolDirectory spool(dir.path());
        QString error;
        QVERIFY2(spool.prepare(&error), qPrintable(error));
        QCOMPARE(QFileInfo(dir.path()).permissions() & (QFile::ReadOther | QFile::ReadGroup),
                 QFile::Permissions());
        for (int i = 0; i < 300; ++i)
            QVERIFY(spool.post(item(i), &error));
        std::mutex mutex;
        QList<QString> taken;
        auto worker = [&](const QString &name) {
            QString problem;
            while (const std::optional<WorkItem> w = spool.claim(name, &problem)) {
                std::lock_guard lock(mutex);
                taken.append(w->id);
            }
        };
        std::thread a(worker, u"101"_s), b(worker, u"102"_s);
        a.join();
        b.join();
        QCOMPARE(taken.size(), 300);
        QCOMPARE(QSet<QString>(taken.begin(), taken.end()).size(), 300);
        QCOMPARE(spool.incomingCount(), 0);
        QCOMPARE(spool.claimedBy(u"101"_s).size() + spool.claimedBy(u"102"_s).size(), 300);
    }

    // A result lands before the claim is dropped, and is read (and removed) once.
    void resultsAreTakenOnce()
    {
        QTemporaryDir dir;
        const SpoolDirectory spool(dir.path());
        QString error;
        QVERIFY(spool.prepare(&error));
        QVERIFY(spool.post(item(1), &error));
        const std::optional<WorkItem> w = spool.claim(u"7"_s, &error);
        QVERIFY(w);
        WorkResult result;
        result.id = w->id;
        result.node = u"node-a"_s;
        result.job = u"7"_s;
        result.evaluation.verdict = Verdict::Pass;
        result.evaluation.speedup = 1.5;
        QVERIFY(spool.complete(u"7"_s, result, &error));
        QVERIFY(spool.claimedBy(u"7"_s).isEmpty());
        QVERIFY(spool.hasResult(w->id));
        QStringList problems, unreadable;
        const QList<WorkResult> results = spool.takeResults(&problems, &unreadable);
        QCOMPARE(results.size(), 1);
        QCOMPARE(results[0].evaluation.verdict, Verdict::Pass);
        QCOMPARE(results[0].evaluation.speedup.value_or(0), 1.5);
        QCOMPARE(results[0].node, u"node-a"_s);
        QVERIFY(spool.takeResults(&problems, &unreadable).isEmpty());
        QVERIFY(problems.isEmpty() && unreadable.isEmpty());

        // A result that is not JSON is removed, and its item named for a retry.
        QFile junk(spool.path(u"done/e00000009.json"_s));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{\"format\": trunc");
        junk.close();
        QVERIFY(spool.takeResults(&problems, &unreadable).isEmpty());
        QCOMPARE(unreadable, QStringList{u"e00000009"_s});
        QCOMPARE(problems.size(), 1);
        QVERIFY(!junk.exists());
    }

    // The items of a worker that vanished go back to incoming/ and can be taken again; a
    // restarted worker of the same name returns its own; a withdrawn item is gone.
    void requeueAndRelease()
    {
        QTemporaryDir dir;
        const SpoolDirectory spool(dir.path());
        QString error;
        QVERIFY(spool.prepare(&error));
        for (int i = 0; i < 3; ++i)
            QVERIFY(spool.post(item(i), &error));
        QVERIFY(spool.withdraw(item(2).id));
        QVERIFY(!spool.withdraw(item(2).id));
        QVERIFY(spool.claim(u"1"_s, &error));
        QVERIFY(spool.claim(u"1"_s, &error));
        QVERIFY(!spool.claim(u"1"_s, &error));
        QVERIFY(error.isEmpty());
        QVERIFY(spool.requeue(u"1"_s, item(0).id));
        QVERIFY(!spool.requeue(u"1"_s, item(0).id)); // not held any more
        QCOMPARE(spool.incomingCount(), 1);
        QCOMPARE(spool.releaseClaims(u"1"_s), 1);
        QCOMPARE(spool.incomingCount(), 2);
        const std::optional<WorkItem> again = spool.claim(u"2"_s, &error);
        QVERIFY(again);
        QCOMPARE(again->id, item(0).id); // oldest first
    }

    // A file that is not a work item is never evaluated: it is answered with an error result,
    // so the evaluation waiting for it ends.
    void unreadableItemIsAnswered()
    {
        QTemporaryDir dir;
        const SpoolDirectory spool(dir.path());
        QString error;
        QVERIFY(spool.prepare(&error));
        QFile junk(spool.path(u"incoming/e00000001.json"_s));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{not json");
        junk.close();
        QVERIFY(!spool.claim(u"3"_s, &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(spool.incomingCount(), 0);
        QVERIFY(spool.claimedBy(u"3"_s).isEmpty());
        QStringList problems, unreadable;
        const QList<WorkResult> results = spool.takeResults(&problems, &unreadable);
        QCOMPARE(results.size(), 1);
        QCOMPARE(results[0].id, u"e00000001"_s);
        QVERIFY(results[0].error.contains(u"could not be read"_s));
    }

    // A worker never recreates a session folder the engine removed, and a claim can be dropped
    // outright.
    void removedSessionStaysRemoved()
    {
        QTemporaryDir dir;
        const SpoolDirectory spool(dir.filePath(u"session"_s));
        QString error;
        QVERIFY(spool.prepare(&error));
        QVERIFY(spool.post(item(1), &error));
        QVERIFY(spool.claim(u"5"_s, &error));
        QVERIFY(spool.hasStarted(u"5"_s));
        QVERIFY(!spool.hasStarted(u"6"_s));
        spool.drop(u"5"_s, item(1).id);
        QVERIFY(spool.claimedBy(u"5"_s).isEmpty());
        QVERIFY(QDir(spool.root()).removeRecursively());
        QVERIFY(!spool.exists());
        QVERIFY(!spool.claim(u"5"_s, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFileInfo::exists(spool.root()));
    }

    void sbatchOptionsFollowTheSettings()
    {
        SlurmSettings s;
        QVERIFY(!s.problem().isEmpty()); // a partition is required
        s.partition = u"gpu"_s;
        s.gpus = 2;
        s.account = u"lab"_s;
        s.timeLimit = u"30:00"_s;
        QVERIFY(s.problem().isEmpty());
        const QStringList options = s.sbatchOptions(u"kiln-session-1"_s);
        for (const QString &o :
             {u"--partition=gpu"_s, u"--gres=gpu:2"_s, u"--account=lab"_s, u"--time=30:00"_s,
              u"--parsable"_s, u"--job-name=kiln-session-1"_s})
            QVERIFY2(options.contains(o), qPrintable(o));
        s.gpus = 0;
        QVERIFY(!s.sbatchOptions(u"k"_s).join(u' ').contains(u"gres"_s));
        QCOMPARE(SlurmSettings::fromJson(s.toJson()).toJson(), s.toJson());
    }

    void runArgumentsSelectTheExecutor()
    {
        QString error;
        const auto parsed = RunArguments::parse(
            {u"--task"_s, u"vector_add"_s, u"--executor"_s, u"slurm"_s, u"--slurm-partition"_s,
             u"debug"_s, u"--slurm-gpus"_s, u"1"_s, u"--slurm-max-jobs"_s, u"8"_s},
            &error, RunArguments::Backends::NameOnly);
        QVERIFY2(parsed, qPrintable(error));
        QVERIFY(parsed->config.onSlurm());
        QCOMPARE(parsed->config.slurm.gpus, 1);
        QCOMPARE(parsed->config.slurm.maxJobs, 8);
        const RunConfig stored = RunConfig::fromJson(parsed->config.toJson());
        QVERIFY(stored.onSlurm());
        QCOMPARE(stored.slurm.partition, u"debug"_s);
        QVERIFY(!RunArguments::parse({u"--task"_s, u"vector_add"_s, u"--executor"_s, u"slurm"_s},
                                     &error, RunArguments::Backends::NameOnly));
        QVERIFY(error.contains(u"--slurm-partition"_s));
        QVERIFY(!RunArguments::parse({u"--task"_s, u"vector_add"_s, u"--executor"_s, u"mpi"_s},
                                     &error, RunArguments::Backends::NameOnly));
        QVERIFY(error.contains(u"local or slurm"_s));
    }
};

QTEST_GUILESS_MAIN(TestSpoolDirectory)
#include "tst_spooldirectory.moc"
