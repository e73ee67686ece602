// Another process busy on the CPU during a timed window is seen, named and called a
// disturbance, and so are short-lived processes gone by the window's end (through the process
// that waited for them), and another thread of the engine; the processes of the evaluation itself,
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

    // /proc counts CPU time in clock ticks (10 ms): a few of them, read at both ends and taken
    // off for a child gone, are the margin.
    static constexpr double kTicksMs = 40.0;

    // The CPU time a shell (its children one at a time: at most one core) used in a window.
    static double shellTime(const CpuActivity::Finding &finding, qint64 pid)
    {
        for (const CpuActivity::Other &o : finding.top)
            if (o.pid == pid)
                return o.cpuMs;
        return -1.0;
    }

    // Starts `sh -c script` and reads its first line, which must be `first`; its pid, or 0.
    static qint64 startShell(QProcess &shell, const QString &script, const QByteArray &first)
    {
        shell.start(QStringLiteral("sh"), {QStringLiteral("-c"), script});
        if (!shell.waitForStarted())
            return 0;
        const qint64 pid = shell.processId();
        if (!shell.waitForReadyRead(20000) || shell.readLine().trimmed() != first)
            return 0;
        return pid;
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

    // A shell that runs busy children one after another, each born and gone inside the window
    // (a build's compiler calls): none is in /proc at either end, and their time is found in
    // the shell's count of its children.
    void childrenGoneInsideTheWindowAreSeen()
    {
        QProcess shell;
        const qint64 pid = startShell(
            shell,
            QStringLiteral("(i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done); echo early; "
                           "read go; for n in 1 2 3; do (i=0; while [ $i -lt 40000 ]; "
                           "do i=$((i+1)); done); done; echo done; read end"),
            "early");
        QVERIFY(pid);
        CpuActivity activity({});
        activity.start();
        QElapsedTimer window;
        window.start();
        shell.write("go\n");
        QVERIFY(shell.waitForReadyRead(20000));
        const CpuActivity::Finding finding = activity.finish();
        shell.write("end\n");
        QVERIFY(shell.waitForFinished());
        QVERIFY2(finding.disturbed, qPrintable(finding.describe()));
        const double shellMs = shellTime(finding, pid);
        QVERIFY2(shellMs > 50.0, qPrintable(finding.describe()));
        // Nothing from before the window: the child the shell ran then is not counted again.
        QVERIFY2(shellMs <= window.elapsed() + kTicksMs, qPrintable(finding.describe()));
    }

    // A child already busy for a while at the start and gone by the end counts with the part of
    // its time inside the window only.
    void aChildGoneByTheEndCountsFromTheStart()
    {
        QProcess shell;
        const qint64 pid = startShell(
            shell,
            QStringLiteral("(i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done) & echo started; "
                           "wait; echo done; read end"),
            "started");
        QVERIFY(pid);
        QTest::qWait(700);
        CpuActivity activity({});
        activity.start();
        QElapsedTimer window;
        window.start();
        QVERIFY(shell.waitForReadyRead(60000));
        const CpuActivity::Finding finding = activity.finish();
        QCOMPARE(shell.readLine().trimmed(), QByteArray("done"));
        shell.write("end\n");
        QVERIFY(shell.waitForFinished());
        const double shellMs = shellTime(finding, pid);
        QVERIFY2(shellMs > 0.0, qPrintable(finding.describe()));
        QVERIFY2(shellMs <= window.elapsed() + kTicksMs, qPrintable(finding.describe()));
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
