// A device-only CUDA candidate rewritten with a host entry (what the defect injector does before
// it adds host-side gaming): the kernel is no longer the entry, the launch line is gone so the
// verifier takes the nvcc path, and the host entry launches with the declared geometry, in the
// harness's arithmetic. Sources that are not device-only are left alone.
#include "policies/offline/hostlaunchwriter.h"
#include "tasks/launchgeometry.h"
#include "tasks/tasklibrary.h"

#include <QTest>

using namespace kiln;

class TestHostLaunchWriter : public QObject
{
    Q_OBJECT

private:
    TaskLibrary m_tasks;

private slots:
    void initTestCase() { m_tasks.loadEmbedded(); }

    void deviceOnlyKernelGetsAHostEntry()
    {
        const Task *task = m_tasks.task(QStringLiteral("transpose"));
        QVERIFY(task);
        QString source =
            QStringLiteral("// kiln-launch: grid=((cols + 31) / 32, (rows + 31) / 32) block=(32, "
                           "8) shared=(4 * 33)\n"
                           "extern \"C\" __global__ void __launch_bounds__(256)\n"
                           "    transpose(const float *x, float *y, int rows, int cols)\n"
                           "{\n"
                           "}\n");
        QVERIFY(HostLaunchWriter::addHostEntry(&source, *task));
        QString error;
        QVERIFY(!LaunchGeometry::parse(source, &error));
        QVERIFY(error.isEmpty());
        QVERIFY(source.startsWith(QLatin1String("#include <cuda_runtime.h>\n")));
        QVERIFY2(source.contains(QLatin1String(
                     "__global__ void __launch_bounds__(256)\n    transpose_kernel(const float")),
                 qPrintable(source));
        QVERIFY2(source.contains(QLatin1String("extern \"C\" void transpose(const float* x, float* "
                                               "y, int rows, int cols, cudaStream_t stream)")),
                 qPrintable(source));
        // Divisions in real arithmetic rounded down, as the harness evaluates them; constants
        // as their values.
        QVERIFY2(source.contains(
                     QLatin1String("grid(static_cast<unsigned>((double(cols) + 31.0) / 32.0), "
                                   "static_cast<unsigned>((double(rows) + 31.0) / 32.0))")),
                 qPrintable(source));
        QVERIFY2(source.contains(QLatin1String("block(32, 8)")), qPrintable(source));
        QVERIFY2(source.contains(QLatin1String(
                     "transpose_kernel<<<grid, block, 132, stream>>>(x, y, rows, cols);")),
                 qPrintable(source));
    }

    void otherSourcesAreLeftAlone_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("host entry") << QStringLiteral(
            "__global__ void k(const float *x, float *y) {}\n"
            "extern \"C\" void transpose(const float *x, float *y, int rows, int cols,\n"
            "                          cudaStream_t s) { k<<<1, 1, 0, s>>>(x, y); }\n");
        QTest::newRow("another entry name")
            << QStringLiteral("// kiln-launch: grid=(rows) block=(32)\n"
                              "extern \"C\" __global__ void other(const float *x, float *y, int "
                              "rows, int cols) {}\n");
        QTest::newRow("a size the entry does not take") << QStringLiteral(
            "// kiln-launch: grid=(n) block=(32)\n"
            "extern \"C\" __global__ void transpose(const float *x, float *y, int rows, int cols) "
            "{}\n");
    }
    void otherSourcesAreLeftAlone()
    {
        QFETCH(QString, source);
        const Task *task = m_tasks.task(QStringLiteral("transpose"));
        QString copy = source;
        QVERIFY(!HostLaunchWriter::addHostEntry(&copy, *task));
        QCOMPARE(copy, source);
    }
};

QTEST_GUILESS_MAIN(TestHostLaunchWriter)
#include "tst_hostlaunchwriter.moc"
