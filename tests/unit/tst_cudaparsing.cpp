// The text the CUDA backend reads and writes: kiln-launch lines, kiln-cuda-sandbox --probe
// output, ptxas resource reports, nvcc/NVRTC diagnostics and the generated entry shim.

#include "tasks/launchgeometry.h"
#include "tasks/tasklibrary.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/cuda/cudasandboxpool.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/harness/entryshim.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <thread>

using namespace kiln;

class TestCudaParsing : public QObject
{
    Q_OBJECT

private slots:
    void launchGeometry_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QList<qint64>>("expected"); // gx gy gz bx by bz shared
        QTest::newRow("ceil division")
            << QStringLiteral("// kiln-launch: grid=((n + 255) / 256) block=(256)") << qint64(1000)
            << QList<qint64>{4, 1, 1, 256, 1, 1, 0};
        QTest::newRow("exact multiple")
            << QStringLiteral("// kiln-launch: grid=((n + 255) / 256) block=(256)") << qint64(512)
            << QList<qint64>{2, 1, 1, 256, 1, 1, 0};
        QTest::newRow("size one") << QStringLiteral(
                                         "// kiln-launch: grid=((n + 255) / 256) block=(256)")
                                  << qint64(1) << QList<qint64>{1, 1, 1, 256, 1, 1, 0};
        QTest::newRow("2d with shared")
            << QStringLiteral(
                   "//kiln-launch: grid=((n+31)/32, (n+7)/8) block=(32, 8) shared=4*32*8")
            << qint64(100) << QList<qint64>{4, 13, 1, 32, 8, 1, 1024};
        QTest::newRow("scalar forms") << QStringLiteral("// kiln-launch: grid=n block=128")
                                      << qint64(7) << QList<qint64>{7, 1, 1, 128, 1, 1, 0};
    }
    void launchGeometry()
    {
        QFETCH(QString, line);
        QFETCH(qint64, n);
        QFETCH(QList<qint64>, expected);
        const QString source = QStringLiteral("#include <x>\n") + line +
                               QStringLiteral("\nextern \"C\" __global__ void f() {}\n");
        QString error;
        const std::optional<LaunchGeometry> geometry = LaunchGeometry::parse(source, &error);
        QVERIFY2(geometry && error.isEmpty(), qPrintable(error));
        QCOMPARE(geometry->line(), 2);
        ShapeConfig shape;
        shape.sizes.insert(QStringLiteral("n"), n);
        const auto dims = geometry->evaluate(shape, &error);
        QVERIFY2(dims, qPrintable(error));
        const QList<qint64> got{dims->grid[0],  dims->grid[1],  dims->grid[2],    dims->block[0],
                                dims->block[1], dims->block[2], dims->sharedBytes};
        QCOMPARE(got, expected);
    }

    void launchGeometryErrors()
    {
        QString error;
        QVERIFY(!LaunchGeometry::parse(QStringLiteral("__global__ void f() {}"), &error));
        QVERIFY(error.isEmpty()); // no line: the nvcc path, not an error
        LaunchGeometry::parse(QStringLiteral("// kiln-launch: grid=(n)\n"), &error);
        QVERIFY(error.contains(QLatin1String("block")));
        LaunchGeometry::parse(QStringLiteral("\n// kiln-launch: grid=(n block=(1)\n"), &error);
        QVERIFY2(error.contains(QLatin1String("line 2")), qPrintable(error));
        LaunchGeometry::parse(QStringLiteral("// kiln-launch: grid=(n +) block=(1)\n"), &error);
        QVERIFY(!error.isEmpty());
        LaunchGeometry::parse(QStringLiteral("// kiln-launch: grid=(1,2,3,4) block=(1)\n"), &error);
        QVERIFY(error.contains(QLatin1String("three")));
        // Text the line cannot use is an error, not ignored: this would launch with 4 bytes.
        LaunchGeometry::parse(QStringLiteral("// kiln-launch: grid=(n) block=(1) shared=4 * 33\n"),
                              &error);
        QVERIFY2(error.contains(QLatin1String("unexpected \"* 33\"")), qPrintable(error));
        LaunchGeometry::parse(QStringLiteral("// kiln-launch: grid=(n) blocks=(1)\n"), &error);
        QVERIFY2(error.contains(QLatin1String("unexpected")), qPrintable(error));
        // Valid text, but zero blocks for this shape: an error at evaluation, with the reason.
        const auto geometry = LaunchGeometry::parse(
            QStringLiteral("// kiln-launch: grid=(n / 256) block=(256)"), &error);
        QVERIFY(geometry && error.isEmpty());
        ShapeConfig shape;
        shape.sizes.insert(QStringLiteral("n"), 100);
        QVERIFY(!geometry->evaluate(shape, &error));
        QVERIFY(error.contains(QLatin1String("n / 256")));
        shape.sizes.clear();
        QVERIFY(!geometry->evaluate(shape, &error)); // unknown size name
    }

    void signatureCode()
    {
        const TaskLibrary library = TaskLibrary::standard({});
        QCOMPARE(LaunchGeometry::signatureCode(*library.task(QStringLiteral("layernorm"))),
                 QByteArray("PPPPIIF"));
        QCOMPARE(LaunchGeometry::signatureCode(*library.task(QStringLiteral("matmul"))),
                 QByteArray("PPPIII"));
    }

    void cudaShim()
    {
        const TaskLibrary library = TaskLibrary::standard({});
        const QString shim = EntryShim::cudaSource(*library.task(QStringLiteral("layernorm")));
        QVERIFY(
            shim.contains(QLatin1String("extern \"C\" void layernorm(const float*, const float*, "
                                        "const float*, float*, int, int, float, cudaStream_t);")));
        QVERIFY(shim.contains(QLatin1String("(float)r[0], s);")));
        QVERIFY(shim.contains(QLatin1String(EntryShim::kSymbol)));
    }

    void probeOutput()
    {
        const CudaAvailability two = CudaDevices::parse(QStringLiteral(
            "versions 13000 13010 13.0\n"
            "device 0 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"
            "device 1 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"));
        QVERIFY(two.usable);
        QCOMPARE(two.devices.size(), 2);
        QCOMPARE(two.devices[1].index, 1);
        QCOMPARE(two.devices[0].name, QStringLiteral("NVIDIA H200"));
        QCOMPARE(two.devices[0].architecture(), QStringLiteral("sm_90"));
        QCOMPARE(two.devices[0].l2Bytes, qint64(52428800));
        // 132 SMs x 128 lanes x 2 flops x 1.98 GHz
        QCOMPARE(qRound64(two.devices[0].peakFp32FlopsPerSecond() / 1e9), qint64(66908));
        QCOMPARE(CudaAvailability::versionText(two.runtimeVersion), QStringLiteral("13.0"));
        QCOMPARE(CudaAvailability::versionText(two.driverVersion), QStringLiteral("13.1"));
        QCOMPARE(two.nvrtcVersion, QStringLiteral("13.0"));

        const CudaAvailability noDriver = CudaDevices::parse(QStringLiteral(
            "error cudaErrorInsufficientDriver: CUDA driver version is insufficient\n"));
        QVERIFY(!noDriver.usable);
        QVERIFY(noDriver.reason.startsWith(QLatin1String("no usable NVIDIA driver")));
        const CudaAvailability noDevice =
            CudaDevices::parse(QStringLiteral("error cudaErrorNoDevice: no CUDA-capable device\n"));
        QVERIFY(noDevice.reason.startsWith(QLatin1String("no CUDA device")));
        const CudaAvailability broken = CudaDevices::parse(
            QStringLiteral("error cudaErrorECCUncorrectable: uncorrectable ECC\n"));
        QVERIFY(broken.reason.contains(QLatin1String("ECC")));
        QVERIFY(!CudaDevices::parse(QStringLiteral("garbage\ndevice 1 2\n")).usable);
    }

    void probeHere()
    {
        // Whatever this machine has, the answer is definite: devices, or a reason.
        const CudaAvailability here = CudaDevices::probe();
        QVERIFY(here.usable ? !here.devices.isEmpty() : !here.reason.isEmpty());
    }

    // Several slots a GPU (KILN_CUDA_SLOTS): the first leases spread over the GPUs before any
    // GPU takes a second one.
    void poolHasSlotsPerGpu()
    {
        const CudaAvailability two = CudaDevices::parse(QStringLiteral(
            "device 0 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"
            "device 1 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"));
        VerifierOptions options = VerifierOptions::defaults();
        QCOMPARE(options.cudaSlotsPerGpu, 1);
        QVERIFY(options.cudaLauncher);
        options.cudaSlotsPerGpu = 2;
        CudaSandboxPool pool(options, two);
        QCOMPARE(pool.size(), 4);
        std::atomic<bool> cancel{false};
        CudaSandboxPool::Lease a = pool.acquire(cancel);
        CudaSandboxPool::Lease b = pool.acquire(cancel);
        CudaSandboxPool::Lease c = pool.acquire(cancel);
        CudaSandboxPool::Lease d = pool.acquire(cancel);
        QCOMPARE(a.slot()->device().index + b.slot()->device().index, 1);
        QCOMPARE(c.slot()->device().index + d.slot()->device().index, 1);
        const QSet<CudaSandboxSlot *> distinct{a.slot(), b.slot(), c.slot(), d.slot()};
        QCOMPARE(distinct.size(), 4);

        qputenv("KILN_CUDA_SLOTS", "3");
        qputenv("KILN_CUDA_LAUNCHER", "0");
        const VerifierOptions fromEnvironment = VerifierOptions::defaults();
        qunsetenv("KILN_CUDA_SLOTS");
        qunsetenv("KILN_CUDA_LAUNCHER");
        QCOMPARE(fromEnvironment.cudaSlotsPerGpu, 3);
        QVERIFY(!fromEnvironment.cudaLauncher);
    }

    // Evaluations take whichever GPU is free; with every GPU busy they wait, and a cancel ends
    // the wait. (Slots start their sandbox lazily, so no GPU is needed here.)
    void poolSpreadsOverGpus()
    {
        const CudaAvailability two = CudaDevices::parse(QStringLiteral(
            "device 0 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"
            "device 1 9 0 132 52428800 150109978624 1980000 2619000 6144 NVIDIA H200\n"));
        CudaSandboxPool pool(VerifierOptions::defaults(), two);
        QCOMPARE(pool.size(), 2);
        std::atomic<bool> cancel{false};
        auto first = std::make_unique<CudaSandboxPool::Lease>(pool.acquire(cancel));
        CudaSandboxPool::Lease second = pool.acquire(cancel);
        QVERIFY(first->slot() && second.slot());
        QVERIFY(first->slot() != second.slot());
        QCOMPARE(first->slot()->device().index + second.slot()->device().index, 1);
        // Both busy: a third waits until one is released.
        CudaSandboxSlot *freed = first->slot();
        std::thread releaser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            first.reset();
        });
        QElapsedTimer waited;
        waited.start();
        CudaSandboxPool::Lease third = pool.acquire(cancel);
        releaser.join();
        QVERIFY(waited.elapsed() >= 90);
        QCOMPARE(third.slot(), freed);
        // All busy and cancelled: an empty lease, promptly.
        cancel = true;
        QVERIFY(!pool.acquire(cancel).slot());
        // No GPU at all: an empty lease at once.
        CudaSandboxPool none(VerifierOptions::defaults(), CudaAvailability{});
        std::atomic<bool> never{false};
        QVERIFY(!none.acquire(never).slot());
    }

    void ptxasReport()
    {
        const QString log = QStringLiteral(
            "ptxas info    : 0 bytes gmem\n"
            "ptxas info    : Compiling entry function '_Z14softmax_kernelPKfPfi' for 'sm_90'\n"
            "ptxas info    : Function properties for _Z14softmax_kernelPKfPfi\n"
            "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
            "ptxas info    : Used 20 registers, used 1 barriers, 1024 bytes smem\n"
            "ptxas info    : Compiling entry function 'tiled' for 'sm_90'\n"
            "ptxas info    : Function properties for tiled\n"
            "    8 bytes stack frame, 24 bytes spill stores, 24 bytes spill loads\n"
            "ptxas info    : Used 255 registers, used 0 barriers\n");
        const QJsonArray kernels = CudaCompiler::parseResourceUsage(log);
        QCOMPARE(kernels.size(), 2);
        QCOMPARE(kernels[0][QStringLiteral("name")].toString(),
                 QStringLiteral("softmax_kernel(float const*, float*, int)"));
        QCOMPARE(kernels[0][QStringLiteral("registers")].toInt(), 20);
        QCOMPARE(kernels[0][QStringLiteral("shared_bytes")].toInt(), 1024);
        QCOMPARE(kernels[1][QStringLiteral("spill_bytes")].toInt(), 24);
        QCOMPARE(kernels[1][QStringLiteral("registers")].toInt(), 255);
    }

    void diagnostics()
    {
        const QString log = QStringLiteral(
            "cand.cu(12): error: identifier \"INFINITY\" is undefined\n"
            "cand.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n"
            "/tmp/w/cand.cu:40:5: error: 'foo' was not declared in this scope\n"
            "shim.cpp(2): error: not ours\n");
        const QJsonArray d = CudaCompiler::parseDiagnostics(log);
        QCOMPARE(d.size(), 3);
        QList<int> lines;
        for (const QJsonValue &v : d)
            lines << v[QStringLiteral("line")].toInt();
        std::sort(lines.begin(), lines.end());
        QCOMPARE(lines, (QList<int>{3, 12, 40}));
    }
};

QTEST_GUILESS_MAIN(TestCudaParsing)
#include "tst_cudaparsing.moc"
