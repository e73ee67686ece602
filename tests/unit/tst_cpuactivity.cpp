// Another process busy on the CPU during a timed window is seen, named and called a
// disturbance, and so is another thread of the engine; the processes of the evaluation itself,
// the timing thread and threads at SCHED_IDLE are never counted.
#include "verifier/cpu/cpuactivity.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>

#include <atomic>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <unistd.h>

using namespace kiln;

class TestCpuActivity : public QObject
{
    Q_OBJECT

private:
    static void spinFor(int ms)
    {
        QElapsedTimer t;
        t.start();
        volatile double x = 1.0;
        while (t.elapsed() < ms)
            x = x * 1.0000001 + 1e-9;
    }

private slots:
    void anotherBusyProcessIsADisturbance()
    {
        QProcess busy;
        busy.start(QStringLiteral("sh"),
                   {QStringLiteral("-c"), QStringLiteral("while :; do :; done")});
        QVERIFY(busy.waitForStarted());
        const qint64 pid = busy.processId();
        CpuActivity activity({});
        activity.start();
        QTest::qWait(400);
        const CpuActivity::Finding finding = activity.finish();
        busy.kill();
        busy.waitForFinished();
        QVERIFY2(finding.disturbed, qPrintable(finding.describe()));
        QVERIFY(finding.othersMs > 100.0);
        QVERIFY(!finding.top.isEmpty());
        bool named = false;
        for (const CpuActivity::Other &o : finding.top)
            named = named || (o.pid == pid && o.name == QLatin1String("sh"));
        QVERIFY2(named, qPrintable(finding.describe()));
    }

    // This process's own work (the engine) and the pids it names (the sandboxes) are ours.
    void ourOwnWorkIsNotCounted()
    {
        QProcess child;
        child.start(QStringLiteral("sh"),
                    {QStringLiteral("-c"), QStringLiteral("while :; do :; done")});
        QVERIFY(child.waitForStarted());
        const qint64 pid = child.processId();
        CpuActivity activity({pid});
        activity.start();
        spinFor(300);
        const CpuActivity::Finding finding = activity.finish();
        child.kill();
        child.waitForFinished();
        for (const CpuActivity::Other &o : finding.top)
            QVERIFY2(o.pid != pid && o.pid != QCoreApplication::applicationPid(),
                     qPrintable(finding.describe()));
    }

    // Another evaluation's inputs and comparisons, on a thread of this process, delay the
    // round trips the timing thread measures: they disturb the window. A SCHED_IDLE spinner
    // (CoreWaker's) takes no core anyone wants and does not.
    void anotherThreadOfTheEngineIsADisturbance_data()
    {
        QTest::addColumn<bool>("idle");
        QTest::newRow("normal thread") << false;
        QTest::newRow("SCHED_IDLE thread") << true;
    }
    void anotherThreadOfTheEngineIsADisturbance()
    {
        QFETCH(bool, idle);
        std::atomic<bool> stop{false};
        std::atomic<bool> ready{false};
        std::atomic<qint64> tid{0};
        std::thread worker([&] {
            if (idle) {
                sched_param none{};
                ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &none);
            }
            tid = qint64(::gettid());
            ready = true;
            volatile double x = 1.0;
            while (!stop)
                x = x * 1.0000001 + 1e-9;
        });
        while (!ready)
            std::this_thread::yield();
        CpuActivity activity({});
        activity.start();
        QTest::qWait(400);
        const CpuActivity::Finding finding = activity.finish();
        stop = true;
        worker.join();
        // Other tests may run beside this one: only the engine's own threads are asserted on.
        if (idle) {
            QVERIFY2(finding.engineThreadsMs < 20.0, qPrintable(finding.describe()));
        } else {
            QVERIFY2(finding.engineThreadsMs > 100.0, qPrintable(finding.describe()));
            QVERIFY2(finding.disturbed, qPrintable(finding.describe()));
        }
        bool seen = false;
        for (const CpuActivity::Other &o : finding.top)
            seen = seen || (o.pid == tid && o.engineThread);
        QVERIFY(!(idle && seen));
    }
};

QTEST_GUILESS_MAIN(TestCpuActivity)
#include "tst_cpuactivity.moc"
