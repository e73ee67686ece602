// Another process busy on the CPU during a timed window is seen, named and called a
// disturbance; the processes of the evaluation itself are never counted.
#include "verifier/cpu/cpuactivity.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>

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
};

QTEST_GUILESS_MAIN(TestCpuActivity)
#include "tst_cpuactivity.moc"
