// The machine-wide timing lock: exclusive holders exclude everyone, shared ones each other not,
// a waiting timing goes before new shared holders, waits end on cancel, and another process's
// flock on the same file is honoured.
#include "verifier/harness/devicelock.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

using namespace kiln;
using Mode = DeviceLock::Mode;

class TestDeviceLock : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    const QString m_device = QStringLiteral("test-device");

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        qputenv("KILN_LOCK_DIR", m_dir.path().toUtf8());
        qunsetenv("KILN_DEVICE_LOCK");
    }

    void sharedHoldersCoexist()
    {
        DeviceLock a(m_device, Mode::Shared), b(m_device, Mode::Shared);
        QVERIFY(a.held());
        QVERIFY(b.held());
    }

    void exclusiveWaitsUntilCancelled()
    {
        DeviceLock holder(m_device, Mode::Exclusive);
        QVERIFY(holder.held());
        std::atomic<bool> cancel{false};
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        bool held = true, cancelled = false;
        double waited = 0.0;
        std::thread other([&] { // another thread: this one's own request would be nested
            DeviceLock waiting(m_device, Mode::Shared, &cancel);
            held = waiting.held();
            cancelled = waiting.cancelled();
            waited = waiting.waitedMs();
        });
        stopper.join();
        other.join();
        QVERIFY(!held);
        QVERIFY(cancelled);
        QVERIFY(waited >= 250.0);
    }

    // Starting the GPU checker while this thread's correctness calls hold the GPU: the nested
    // request is granted at once, though another process's timing is queued and waits for the
    // outer hold (waiting would deadlock).
    void nestedHoldOfOneThreadIsGranted()
    {
        DeviceLock outer(m_device, Mode::Shared);
        std::atomic<bool> stop{false};
        std::thread timing([&] { DeviceLock t(m_device, Mode::Exclusive, &stop); });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QElapsedTimer clock;
        clock.start();
        {
            DeviceLock inner(m_device, Mode::Shared, &stop);
            QVERIFY(inner.held());
        }
        QVERIFY2(clock.elapsed() < 50, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(outer.held());
        stop = true;
        timing.join();
    }

    void timingWaitsForSharedWorkThenRuns()
    {
        auto work = std::make_unique<DeviceLock>(m_device, Mode::Shared);
        double waited = 0.0;
        std::thread timing([&] {
            DeviceLock t(m_device, Mode::Exclusive);
            waited = t.held() ? t.waitedMs() : -1.0;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        work.reset();
        timing.join();
        QVERIFY2(waited >= 150.0, qPrintable(QString::number(waited)));
    }

    // A waiting timing is not starved by shared holders that keep arriving.
    void waitingTimingGoesBeforeNewSharedWork()
    {
        auto first = std::make_unique<DeviceLock>(m_device, Mode::Shared);
        QElapsedTimer clock;
        clock.start();
        std::atomic<qint64> timingAt{-1}, laterWorkAt{-1};
        std::thread timing([&] {
            DeviceLock t(m_device, Mode::Exclusive);
            timingAt = clock.elapsed();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::thread later([&] {
            DeviceLock w(m_device, Mode::Shared);
            laterWorkAt = clock.elapsed();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        first.reset();
        timing.join();
        later.join();
        QVERIFY(timingAt >= 0 && laterWorkAt >= 0);
        QVERIFY2(laterWorkAt >= timingAt + 90,
                 qPrintable(QStringLiteral("timing at %1 ms, later work at %2 ms")
                                .arg(timingAt.load())
                                .arg(laterWorkAt.load())));
    }

    void anotherProcessHoldingTheFileIsHonoured()
    {
        const QString flock = QStandardPaths::findExecutable(QStringLiteral("flock"));
        if (flock.isEmpty())
            QSKIP("flock(1) is not installed");
        QProcess holder;
        const QString file = m_dir.path() + QLatin1Char('/') + m_device + QStringLiteral(".lock");
        holder.start(flock, {QStringLiteral("-x"), file, QStringLiteral("-c"),
                             QStringLiteral("echo held; sleep 1")});
        QVERIFY(holder.waitForReadyRead(5000)); // "held": the other process has the lock
        DeviceLock mine(m_device, Mode::Exclusive);
        QVERIFY(mine.held());
        QVERIFY2(mine.waitedMs() >= 500.0, qPrintable(QString::number(mine.waitedMs())));
        holder.waitForFinished(5000);
    }

    void switchedOffTakesNothing()
    {
        qputenv("KILN_DEVICE_LOCK", "off");
        DeviceLock a(m_device, Mode::Exclusive), b(m_device, Mode::Exclusive);
        QVERIFY(!a.held());
        QVERIFY(!a.cancelled());
        QVERIFY(!b.cancelled());
        qunsetenv("KILN_DEVICE_LOCK");
    }
};

QTEST_GUILESS_MAIN(TestDeviceLock)
#include "tst_devicelock.moc"
