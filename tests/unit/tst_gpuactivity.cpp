// Who else used a GPU (NVML, loaded at run time) and how a GPU is named: the probe's uuid lines,
// the lock name, the advisory flag a disturbed timing gets. Runs without a GPU or a driver.

#include "verifier/harness/cudadevices.h"
#include "verifier/harness/gpuactivity.h"
#include "verifier/screen/flagcatalog.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTest>
#include <unistd.h>

using namespace kiln;

namespace {

const QString kUnknownUuid = QStringLiteral("GPU-00000000-0000-0000-0000-000000000000");

} // namespace

class TestGpuActivity : public QObject
{
    Q_OBJECT

private slots:
    void withoutNvmlNothingIsSeen()
    {
        GpuActivity activity;
        if (activity.available())
            QSKIP("NVML is installed here: see answersForAnUnknownGpu");
        QVERIFY(!activity.reason().isEmpty());
        const quint64 since = GpuActivity::nowMicroseconds() - 1000000;
        QVERIFY(activity.othersSince(kUnknownUuid, since, {qint64(::getpid())}).isEmpty());
        QCOMPARE(activity.error(), activity.reason());
        QVERIFY(activity.othersSince(QString(), 0, {}).isEmpty());
        QVERIFY(!activity.waitForSamples(kUnknownUuid, GpuActivity::nowMicroseconds(), 1000));
    }

    void answersForAnUnknownGpu()
    {
        GpuActivity activity;
        if (!activity.available())
            QSKIP(qPrintable(QStringLiteral("no NVML here: ") + activity.reason()));
        QVERIFY(activity.reason().isEmpty());
        // No GPU has this UUID: nothing is seen, and the error says why.
        QVERIFY(activity.othersSince(kUnknownUuid, 0, {}).isEmpty());
        QVERIFY(!activity.error().isEmpty());
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!activity.waitForSamples(kUnknownUuid, GpuActivity::nowMicroseconds(), 1000));
        QVERIFY(timer.elapsed() < 1000); // an unknown device is no reason to wait
    }

    void answersForThisGpu()
    {
        GpuActivity activity;
        const CudaAvailability gpus = CudaDevices::probe();
        if (!activity.available() || !gpus.usable || gpus.devices.first().uuid.isEmpty())
            QSKIP("needs NVML and a GPU that kiln-cuda-sandbox --probe names");
        const QString uuid = gpus.devices.first().uuid;
        const qint64 self = ::getpid();
        const QList<GpuActivity::Busy> others =
            activity.othersSince(uuid, GpuActivity::nowMicroseconds() - 2000000, {self});
        QVERIFY2(activity.error().isEmpty() ||
                     activity.error().contains(QLatin1String("does not sample")),
                 qPrintable(activity.error()));
        for (const GpuActivity::Busy &busy : others) {
            QVERIFY(busy.pid != self);
            QVERIFY(busy.smUtil != 0 || busy.memUtil != 0);
        }
    }

    void describesWhatItSaw()
    {
        const GpuActivity::Busy python{1234, 87, 3, QStringLiteral("python3")};
        const GpuActivity::Busy unnamed{99, -1, -1, QString()};
        QCOMPARE(GpuActivity::describe(python), QStringLiteral("process 1234 (python3, 87 % SM)"));
        QCOMPARE(GpuActivity::describe(unnamed), QStringLiteral("process 99 (?)"));
        QCOMPARE(GpuActivity::describe({python, unnamed}),
                 QStringLiteral("process 1234 (python3, 87 % SM), process 99 (?)"));
        const QJsonArray json = GpuActivity::toJson({python});
        QCOMPARE(json.size(), 1);
        QCOMPARE(json[0][QStringLiteral("pid")].toInteger(), qint64(1234));
        QCOMPARE(json[0][QStringLiteral("name")].toString(), QStringLiteral("python3"));
        QCOMPARE(json[0][QStringLiteral("sm_util")].toInt(), 87);
        const quint64 now = GpuActivity::nowMicroseconds();
        QVERIFY(now > 1700000000ull * 1000000ull); // µs since the epoch, as NVML stamps samples
    }

    void probeNamesTheGpu()
    {
        const CudaAvailability two = CudaDevices::parse(QStringLiteral(
            "versions 13000 13010 13.0\n"
            "device 0 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"
            "uuid 0 GPU-3f550ac7-32b8-0a2e-7bb9-0bd3ea58f757\n"
            "device 1 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"
            "uuid 1 GPU-0aa1b2c3-0000-1111-2222-333344445555\n"
            "uuid 7 GPU-ffffffff-ffff-ffff-ffff-ffffffffffff\n"));
        QVERIFY(two.usable);
        QCOMPARE(two.devices.size(), 2);
        QCOMPARE(two.devices[0].uuid, QStringLiteral("GPU-3f550ac7-32b8-0a2e-7bb9-0bd3ea58f757"));
        QCOMPARE(two.devices[1].uuid, QStringLiteral("GPU-0aa1b2c3-0000-1111-2222-333344445555"));
        QCOMPARE(two.devices[1].name, QStringLiteral("NVIDIA H200"));

        // A sandbox from before the uuid line: the devices still parse, without a UUID.
        const CudaAvailability older = CudaDevices::parse(QStringLiteral(
            "versions 13000 13010 13.0\n"
            "device 0 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"));
        QVERIFY(older.usable);
        QCOMPARE(older.devices.size(), 1);
        QVERIFY(older.devices[0].uuid.isEmpty());
        QCOMPARE(older.devices[0].smCount, 132);
    }

    void lockNameFollowsTheUuid()
    {
        CudaDevice device;
        device.index = 2;
        QCOMPARE(device.lockName(), QStringLiteral("gpu-2"));
        device.uuid = QStringLiteral("GPU-3F550AC7-32B8-0A2E-7BB9-0BD3EA58F757");
        QCOMPARE(device.lockName(), QStringLiteral("gpu-3f550ac7-32b8-0a2e-7bb9-0bd3ea58f757"));
    }

    void disturbedTimingIsAdvisory()
    {
        const FlagInfo *info = FlagCatalog::find(QStringLiteral("timing_disturbed"));
        QVERIFY(info);
        QVERIFY(!info->blocking);
        QCOMPARE(info->stage, QStringLiteral("timing"));
        QVERIFY(FlagCatalog::find(QStringLiteral("side_stream_work"))->blocking);
    }
};

QTEST_GUILESS_MAIN(TestGpuActivity)
#include "tst_gpuactivity.moc"
