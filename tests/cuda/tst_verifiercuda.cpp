// End to end through the real kiln-cuda-sandbox on a GPU: every candidate under
// tests/data/candidates/cuda carries its expected verdict (and flag) in its first line:
//   // expect: task=NAME verdict=VERDICT [flag=ID]
// Files with a "// kiln-launch:" line are device-only (NVRTC); the others go through nvcc.
// Without a usable GPU the whole suite is skipped (ctest -L cuda reports it as skipped).

#include "candidatebatch.h"
#include "tasks/tasklibrary.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::testing;

namespace {

QString candidatePath(const QString &name)
{
    return QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/") + name;
}

bool isDeviceOnly(const QString &path)
{
    return readFile(path).contains(QLatin1String("kiln-launch:"));
}

} // namespace

class TestVerifierCuda : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_cache;
    TaskLibrary m_tasks;
    VerifierOptions m_options;
    std::unique_ptr<VerifierPool> m_pool;
    QHash<QString, EvaluationResult> m_results;
    QList<Expectation> m_expectations;
    static constexpr quint64 kSecret = 20261130;

    const Task &task(const QString &name)
    {
        const Task *t = m_tasks.task(name);
        Q_ASSERT(t);
        return *t;
    }

    EvaluationResult evaluateNow(const QString &name)
    {
        const QString path = candidatePath(name);
        return m_pool->verifier().evaluate(task(readExpectation(path).task), Backend::Cuda,
                                           readFile(path), kSecret);
    }

    EvaluationResult evaluateIn(VerifierPool &pool, const QString &name)
    {
        const QString path = candidatePath(name);
        return pool.verifier().evaluate(task(readExpectation(path).task), Backend::Cuda,
                                        readFile(path), kSecret);
    }

    static QJsonValue stageValue(const EvaluationResult &result, const char *stage, const char *key)
    {
        const StageResult *found = result.stage(QString::fromLatin1(stage));
        return found ? found->data.value(QString::fromLatin1(key)) : QJsonValue();
    }

    // Data rows: the candidates expected to pass.
    void honestRows()
    {
        QTest::addColumn<QString>("path");
        for (const Expectation &e : std::as_const(m_expectations)) {
            if (e.verdict == QLatin1String("pass"))
                QTest::newRow(qPrintable(QFileInfo(e.path).fileName())) << e.path;
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        QVERIFY(m_tasks.loadDirectory(QStringLiteral(KILN_SOURCE_DIR "/tasks")) >= 6);
        m_options = VerifierOptions::defaults();
        m_options.cacheDirectory = m_cache.path();
        const CudaAvailability gpu = CudaDevices::probe(m_options);
        if (!gpu.usable)
            QSKIP(qPrintable(QStringLiteral("no usable GPU: ") + gpu.reason));
        for (const CudaDevice &device : gpu.devices)
            qInfo("GPU %d: %s (sm_%d%d, %d SMs)", device.index, qPrintable(device.name),
                  device.major, device.minor, device.smCount);
        // Host-side work (nvcc) overlaps; the GPU sandboxes serialise what runs on a device.
        m_pool = std::make_unique<VerifierPool>(m_options, 4);

        m_expectations = expectationsIn(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda"), QStringLiteral("*.cu"));
        QVERIFY(m_expectations.size() >= 20);

        QElapsedTimer timer;
        timer.start();
        QString missing;
        m_results = judgeAll(*m_pool, m_tasks, Backend::Cuda, m_expectations, kSecret, &missing);
        QVERIFY2(missing.isEmpty(), qPrintable(missing + QStringLiteral(": its task is unknown")));
        qInfo("%lld CUDA candidates evaluated in %lld ms", qint64(m_results.size()),
              timer.elapsed());
    }

    void verdicts_data()
    {
        QTest::addColumn<QString>("path");
        for (const Expectation &e : std::as_const(m_expectations))
            QTest::newRow(qPrintable(QFileInfo(e.path).fileName())) << e.path;
    }

    void verdicts()
    {
        QFETCH(QString, path);
        const Expectation e = readExpectation(path);
        const EvaluationResult result = m_results.value(path);
        QCOMPARE(result.backend, Backend::Cuda);
        const QString mismatch = expectationMismatch(e, result);
        QVERIFY2(mismatch.isEmpty(),
                 qPrintable(mismatch + QStringLiteral(": ") + describeResult(path, result)));
    }

    // Screen flags point at the candidate's own lines (through nvcc's line markers, or the raw
    // source of a device-only candidate).
    void flagsPointAtLines_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<int>("line");
        QTest::newRow("side stream") << "game_side_stream.cu"
                                     << "stream_creation" << 16;
        QTest::newRow("legacy launch") << "game_legacy_stream.cu"
                                       << "legacy_default_stream" << 16;
        QTest::newRow("legacy launch, host pass only") << "game_legacy_stream_host_pass.cu"
                                                       << "legacy_default_stream" << 16;
        QTest::newRow("synchronous copy") << "game_sync_memcpy.cu"
                                          << "legacy_default_stream" << 19;
        QTest::newRow("access policy") << "game_persisting_l2.cu"
                                       << "persisting_l2" << 17;
        QTest::newRow("cuBLAS") << "game_cublas.cu"
                                << "forbidden_library" << 14;
        QTest::newRow("token-pasted cuBLAS") << "game_cublas_token_paste.cu"
                                             << "forbidden_library" << 25;
        QTest::newRow("CUB device-wide") << "game_cub_device.cu"
                                         << "forbidden_library" << 9;
        QTest::newRow("event timer defined") << "game_timer_event.cu"
                                             << "timer_tampering" << 6;
        QTest::newRow("__half") << "game_half_precision.cu"
                                << "precision_downgrade" << 16;
        QTest::newRow("f16 PTX (device-only)") << "game_half_device_only.cu"
                                               << "precision_downgrade" << 14;
    }

    void flagsPointAtLines()
    {
        QFETCH(QString, file);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const EvaluationResult result = m_results.value(candidatePath(file));
        for (const CheatFlag &f : result.flags) {
            if (f.id != flag)
                continue;
            QStringList lines;
            for (int l : f.lines)
                lines << QString::number(l);
            QVERIFY2(f.lines.contains(line),
                     qPrintable(QStringLiteral("lines ") + lines.join(QLatin1Char(','))));
            QVERIFY(!f.message.isEmpty());
            return;
        }
        QFAIL(qPrintable(QStringLiteral("flag missing: ") + describeResult(file, result)));
    }

    // (a) A fault that loses the CUDA context does not spill into the next evaluation: the GPU
    // sandbox is restarted and an honest candidate passes right after.
    void illegalAddressThenHonest()
    {
        const EvaluationResult fault = evaluateNow(QStringLiteral("hostile_illegal_address.cu"));
        QVERIFY2(fault.verdict == Verdict::Crash,
                 qPrintable(describeResult(QStringLiteral("hostile_illegal_address.cu"), fault)));
        const EvaluationResult next = evaluateNow(QStringLiteral("vector_add_naive.cu"));
        QVERIFY2(next.verdict == Verdict::Pass,
                 qPrintable(describeResult(QStringLiteral("vector_add_naive.cu"), next)));
    }

    // (a) Single use: what one candidate leaves in its process (changed context limits, device
    // memory never freed, a thread that never ends) does not reach the next evaluation, which
    // fails if it finds any of it; and that next evaluation got a process started ahead.
    void leftBehindDoesNotReachTheNext()
    {
        const EvaluationResult polluter = evaluateNow(QStringLiteral("hostile_leave_behind.cu"));
        QVERIFY2(polluter.verdict == Verdict::Pass,
                 qPrintable(describeResult(QStringLiteral("hostile_leave_behind.cu"), polluter)));
        for (int i = 0; i < 2; ++i) {
            const EvaluationResult probe = evaluateNow(QStringLiteral("probe_left_behind.cu"));
            QVERIFY2(probe.verdict == Verdict::Pass,
                     qPrintable(describeResult(QStringLiteral("probe_left_behind.cu"), probe)));
        }
    }

    // (b) A kernel that never ends is a timeout, and the next candidate runs normally.
    void infiniteLoopThenHonest()
    {
        QElapsedTimer timer;
        timer.start();
        const EvaluationResult spin = evaluateNow(QStringLiteral("hostile_infinite_loop.cu"));
        QVERIFY2(spin.verdict == Verdict::Timeout,
                 qPrintable(describeResult(QStringLiteral("hostile_infinite_loop.cu"), spin)));
        qInfo("the endless kernel cost %lld ms", timer.elapsed());
        const EvaluationResult next = evaluateNow(QStringLiteral("softmax_online.cu"));
        QVERIFY2(next.verdict == Verdict::Pass,
                 qPrintable(describeResult(QStringLiteral("softmax_online.cu"), next)));
    }

    // The trusted launcher: device-only candidates share one persistent process, scrubbed
    // between them, while host code keeps a single-use process.
    void launcherServesDeviceOnlyCandidates()
    {
        VerifierPool pool(m_options, 1);
        QList<qint64> pids;
        for (int i = 0; i < 3; ++i) {
            const EvaluationResult result =
                evaluateIn(pool, QStringLiteral("vector_add_device_only.cu"));
            QVERIFY2(
                result.verdict == Verdict::Pass,
                qPrintable(describeResult(QStringLiteral("vector_add_device_only.cu"), result)));
            QCOMPARE(stageValue(result, "compile", "process").toString(),
                     QStringLiteral("launcher"));
            QCOMPARE(stageValue(result, "correctness", "launcher_evaluation").toInt(), i + 1);
            QVERIFY(stageValue(result, "correctness", "scrubbed").toBool());
            pids.append(stageValue(result, "correctness", "launcher_pid").toInteger());
        }
        QVERIFY(pids[0] > 0);
        QCOMPARE(pids[1], pids[0]);
        QCOMPARE(pids[2], pids[0]);
        const EvaluationResult host = evaluateIn(pool, QStringLiteral("vector_add_naive.cu"));
        QCOMPARE(host.verdict, Verdict::Pass);
        QVERIFY(!stageValue(host, "correctness", "launcher_pid").isDouble());
        // The device heap outlives a module: such a kernel keeps a single-use process.
        const EvaluationResult heap =
            evaluateIn(pool, QStringLiteral("vector_add_device_only_heap.cu"));
        QVERIFY2(
            heap.verdict == Verdict::Pass,
            qPrintable(describeResult(QStringLiteral("vector_add_device_only_heap.cu"), heap)));
        QCOMPARE(stageValue(heap, "compile", "process").toString(), QStringLiteral("single-use"));
        QVERIFY(stageValue(heap, "compile", "launcher_refused")
                    .toString()
                    .contains(QStringLiteral("malloc")));
    }

    // A fault or a kernel that never ends replaces the launcher, charged to that candidate; the
    // next device-only candidate passes in a new launcher.
    void launcherFaultAndHangAreTheCandidates_data()
    {
        QTest::addColumn<QString>("hostile");
        QTest::addColumn<int>("verdict");
        QTest::newRow("fault") << QStringLiteral("hostile_launcher_illegal_address.cu")
                               << int(Verdict::Crash);
        QTest::newRow("hang while timed")
            << QStringLiteral("hostile_launcher_late_hang.cu") << int(Verdict::Timeout);
    }

    void launcherFaultAndHangAreTheCandidates()
    {
        QFETCH(QString, hostile);
        QFETCH(int, verdict);
        VerifierPool pool(m_options, 1);
        const EvaluationResult before =
            evaluateIn(pool, QStringLiteral("vector_add_device_only.cu"));
        QCOMPARE(before.verdict, Verdict::Pass);
        const EvaluationResult bad = evaluateIn(pool, hostile);
        QVERIFY2(int(bad.verdict) == verdict, qPrintable(describeResult(hostile, bad)));
        const EvaluationResult after =
            evaluateIn(pool, QStringLiteral("vector_add_device_only.cu"));
        QVERIFY2(after.verdict == Verdict::Pass,
                 qPrintable(describeResult(QStringLiteral("vector_add_device_only.cu"), after)));
        QCOMPARE(stageValue(after, "correctness", "launcher_evaluation").toInt(), 1);
        QVERIFY(stageValue(after, "correctness", "launcher_pid").toInteger() !=
                stageValue(before, "correctness", "launcher_pid").toInteger());
    }

    // What a device-only candidate leaves in a module variable does not reach the next one in
    // the same launcher: the probe finds zeros already in its correctness calls (so the scrub
    // stopped it, not only the timed calls' inputs, which differ from one evaluation to the
    // next).
    void launcherLeftoversDoNotReachTheNext()
    {
        VerifierPool pool(m_options, 1);
        const EvaluationResult stasher =
            evaluateIn(pool, QStringLiteral("hostile_launcher_stash.cu"));
        QVERIFY2(stasher.verdict == Verdict::Pass,
                 qPrintable(describeResult(QStringLiteral("hostile_launcher_stash.cu"), stasher)));
        const EvaluationResult probe = evaluateIn(pool, QStringLiteral("probe_launcher_stash.cu"));
        QVERIFY2(probe.verdict == Verdict::Wrong,
                 qPrintable(describeResult(QStringLiteral("probe_launcher_stash.cu"), probe)));
        const StageResult *correctness = probe.stage(QStringLiteral("correctness"));
        QVERIFY(correctness && !correctness->ok);
        QCOMPARE(stageValue(probe, "correctness", "launcher_pid").toInteger(),
                 stageValue(stasher, "correctness", "launcher_pid").toInteger());
        QVERIFY(stageValue(probe, "compile", "zeroed_globals")
                    .toArray()
                    .contains(QStringLiteral("stash")));
    }

    // With the launcher off (KILN_CUDA_LAUNCHER=0) every candidate gets a single-use process.
    void launcherOffKeepsSingleUse()
    {
        VerifierOptions options = m_options;
        options.cudaLauncher = false;
        VerifierPool pool(options, 1);
        const EvaluationResult result =
            evaluateIn(pool, QStringLiteral("vector_add_device_only.cu"));
        QCOMPARE(result.verdict, Verdict::Pass);
        QCOMPARE(stageValue(result, "compile", "process").toString(), QStringLiteral("single-use"));
        QVERIFY(!stageValue(result, "correctness", "launcher_pid").isDouble());
    }

    // (b) The persistent GPU checker spins a core while it waits on the device, so its CPU
    // time adds up over evaluations: with a small per-evaluation limit, a run of evaluations
    // still all pass (no SIGKILL from RLIMIT_CPU read as a candidate's crash).
    void cpuLimitIsPerEvaluation()
    {
        VerifierOptions options = m_options;
        options.sandbox.cpuSeconds = 5;
        VerifierPool pool(options, 1);
        const QString path = candidatePath(QStringLiteral("vector_add_naive.cu"));
        for (int i = 0; i < 6; ++i) {
            const EvaluationResult result = pool.verifier().evaluate(
                task(QStringLiteral("vector_add")), Backend::Cuda, readFile(path), kSecret + i);
            QVERIFY2(result.verdict == Verdict::Pass,
                     qPrintable(QStringLiteral("evaluation %1: ").arg(i) +
                                describeResult(path, result)));
        }
    }

    // (c) Honest candidates are timed against the reference and placed under the roofline.
    void honestAreTimed_data() { honestRows(); }

    void honestAreTimed()
    {
        QFETCH(QString, path);
        const EvaluationResult result = m_results.value(path);
        QVERIFY2(result.speedup.has_value() && *result.speedup > 0.0,
                 qPrintable(describeResult(path, result)));
        QVERIFY2(result.rooflineFraction.has_value() && *result.rooflineFraction > 0.0,
                 qPrintable(describeResult(path, result)));
        QVERIFY(result.candidateMs.has_value() && *result.candidateMs > 0.0);
        QVERIFY(result.baselineMs.has_value() && *result.baselineMs > 0.0);
    }

    // (c) The compile stage reports every kernel's resources (registers, shared, spills).
    void honestKernelsReportResources_data() { honestRows(); }

    void honestKernelsReportResources()
    {
        QFETCH(QString, path);
        const EvaluationResult result = m_results.value(path);
        const StageResult *compile = result.stage(QStringLiteral("compile"));
        QVERIFY(compile);
        const QJsonArray kernels = compile->data.value(QStringLiteral("kernels")).toArray();
        QVERIFY2(!kernels.isEmpty(),
                 QJsonDocument(compile->data).toJson(QJsonDocument::Compact).constData());
        for (const QJsonValue &kernel : kernels) {
            const QJsonObject k = kernel.toObject();
            QVERIFY(!k.value(QStringLiteral("name")).toString().isEmpty());
            QVERIFY2(k.value(QStringLiteral("registers")).toInt() > 0,
                     QJsonDocument(k).toJson(QJsonDocument::Compact).constData());
            QVERIFY(k.contains(QStringLiteral("shared_bytes")));
            QVERIFY(k.contains(QStringLiteral("spill_bytes")));
        }
    }

    // Device-only candidates take the NVRTC path, the others nvcc.
    void compilePathFollowsTheForm_data() { honestRows(); }

    void compilePathFollowsTheForm()
    {
        QFETCH(QString, path);
        const StageResult *compile = m_results.value(path).stage(QStringLiteral("compile"));
        QVERIFY(compile);
        QCOMPARE(compile->data.value(QStringLiteral("path")).toString(),
                 isDeviceOnly(path) ? QStringLiteral("nvrtc") : QStringLiteral("nvcc"));
    }

    // Every timed call drew inputs of its own on the device (each checked against the host's
    // draw), and the baseline ran in a process of its own.
    void timedCallsSeeFreshInputs()
    {
        const EvaluationResult result =
            m_results.value(candidatePath(QStringLiteral("vector_add_naive.cu")));
        QCOMPARE(result.verdict, Verdict::Pass);
        const StageResult *timing = result.stage(QStringLiteral("timing"));
        QVERIFY(timing);
        const QJsonObject &data = timing->data;
        QVERIFY2(data.value(QStringLiteral("fresh_inputs")).toInt() >
                     data.value(QStringLiteral("candidate"))
                         .toObject()
                         .value(QStringLiteral("n"))
                         .toInt(),
                 QJsonDocument(data).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(data.value(QStringLiteral("baseline_process")).toString(),
                 QStringLiteral("separate"));
    }

    // (d) matmul is also timed against cuBLAS, in the same session.
    void matmulHasLibraryBaseline()
    {
        const QString path = candidatePath(QStringLiteral("matmul_tiled.cu"));
        const EvaluationResult result = m_results.value(path);
        QCOMPARE(result.verdict, Verdict::Pass);
        const StageResult *timing = result.stage(QStringLiteral("timing"));
        QVERIFY(timing);
        const QJsonObject library =
            timing->data.value(QStringLiteral("library_baseline")).toObject();
        QVERIFY2(!library.isEmpty(),
                 QJsonDocument(timing->data).toJson(QJsonDocument::Compact).constData());
        QVERIFY(library.value(QStringLiteral("n")).toInt() >= 2);
        QVERIFY(library.value(QStringLiteral("median")).toDouble() > 0.0);
    }
};

QTEST_GUILESS_MAIN(TestVerifierCuda)
#include "tst_verifiercuda.moc"
