// The GPU shared with a process that is not Kiln's: kiln-gpu-busy keeps the same GPU busy while
// candidates are judged, as another user's job would. Time-slicing then widens the wall clock
// around the timed calls, which is never the candidate's side-stream work: an honest kernel
// passes without side_stream_work (with timing_disturbed at most), and a side-stream cheat is
// still flagged, because the device's tail after the harness stream is its own process's work.
// Without a GPU, NVML or the helper (nvcc missing at build time) the suite skips itself.

#include "candidateexpectation.h"
#include "tasks/tasklibrary.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/harness/gpuactivity.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <unistd.h>

using namespace kiln;
using namespace kiln::testing;

namespace {

QString candidatePath(const QString &name)
{
    return QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/") + name;
}

bool hasFlag(const EvaluationResult &result, const QString &id, bool blocking)
{
    for (const CheatFlag &flag : result.flags)
        if (flag.id == id && flag.blocking == blocking)
            return true;
    return false;
}

QByteArray timingData(const EvaluationResult &result)
{
    for (const StageResult &stage : result.stages)
        if (stage.name == QLatin1String("timing"))
            return QJsonDocument(stage.data).toJson(QJsonDocument::Compact);
    return "no timing stage";
}

} // namespace

class TestGpuDisturbance : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_cache;
    TaskLibrary m_tasks;
    VerifierOptions m_options;
    std::unique_ptr<VerifierPool> m_pool;
    QProcess m_busy;
    QString m_uuid;
    static constexpr quint64 kSecret = 20261207;

    EvaluationResult evaluate(const QString &name)
    {
        const QString path = candidatePath(name);
        const Task *task = m_tasks.task(readExpectation(path).task);
        Q_ASSERT(task);
        return m_pool->verifier().evaluate(*task, Backend::Cuda, readFile(path), kSecret);
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
        const QString helper = QStringLiteral(KILN_GPU_BUSY);
        if (helper.isEmpty() || !QFileInfo(helper).isExecutable())
            QSKIP("kiln-gpu-busy was not built (no nvcc at build time)");
        // Without NVML another process's work cannot be told from the candidate's (the gap
        // flags, as it always did): nothing to test here.
        const GpuActivity activity;
        if (!activity.available())
            QSKIP(qPrintable(activity.reason()));
        m_uuid = gpu.devices.first().uuid;
        QVERIFY2(!m_uuid.isEmpty(), "kiln-cuda-sandbox --probe printed no uuid line");
        m_pool = std::make_unique<VerifierPool>(m_options, 1);
        m_busy.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_busy.start(helper, {QStringLiteral("600")});
        QVERIFY2(m_busy.waitForStarted(10000), qPrintable(m_busy.errorString()));
        while (!m_busy.canReadLine() && m_busy.state() == QProcess::Running)
            m_busy.waitForReadyRead(60000);
        QCOMPARE(m_busy.readLine().trimmed(), QByteArray("busy"));
    }

    void cleanupTestCase()
    {
        if (m_busy.state() == QProcess::NotRunning)
            return;
        m_busy.closeWriteChannel(); // the helper ends when its stdin closes
        if (!m_busy.waitForFinished(10000))
            m_busy.kill();
        m_busy.waitForFinished(5000);
    }

    // NVML names the helper as another process that used the GPU, and never this one.
    void theLoadIsSeen()
    {
        // A process of "ours" on the GPU beside the helper, as an evaluation's sandboxes are:
        // NVML counts others only where one of ours shows in the same samples under its id.
        QProcess ours;
        ours.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        ours.start(QStringLiteral(KILN_GPU_BUSY), {QStringLiteral("30")});
        QVERIFY2(ours.waitForStarted(10000), qPrintable(ours.errorString()));
        while (!ours.canReadLine() && ours.state() == QProcess::Running)
            ours.waitForReadyRead(60000);
        QCOMPARE(ours.readLine().trimmed(), QByteArray("busy"));
        const qint64 oursPid = ours.processId();
        // A window of half a second, then NVML's samples read as an evaluation reads them.
        const quint64 since = GpuActivity::nowMicroseconds();
        QTest::qWait(500);
        GpuActivity activity;
        QVERIFY(activity.waitForSamples(m_uuid, GpuActivity::nowMicroseconds(), 1500));
        const QList<GpuActivity::Busy> others =
            activity.othersSince(m_uuid, since, {qint64(::getpid()), oursPid});
        const QString error = activity.error();
        // None of ours on the GPU: the others cannot be told from ours (a pid namespace would
        // look the same), so nothing is excused.
        GpuActivity alone;
        alone.othersSince(m_uuid, since, {qint64(::getpid())});
        ours.closeWriteChannel();
        ours.waitForFinished(10000);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!alone.error().isEmpty());
        bool helperSeen = false;
        for (const GpuActivity::Busy &busy : others) {
            QVERIFY(busy.pid != ::getpid() && busy.pid != oursPid);
            helperSeen = helperSeen || busy.pid == m_busy.processId();
        }
        QVERIFY2(helperSeen, qPrintable(GpuActivity::describe(others)));
    }

    void honestPassesUnderLoad_data()
    {
        QTest::addColumn<QString>("file");
        for (const char *name : {"vector_add_naive.cu", "vector_add_device_only.cu",
                                 "softmax_online.cu", "transpose_tiled.cu"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void honestPassesUnderLoad()
    {
        QFETCH(QString, file);
        const EvaluationResult result = evaluate(file);
        const QString description = describeResult(candidatePath(file), result);
        qInfo("%s timing %s", qPrintable(description), timingData(result).constData());
        QVERIFY2(!hasFlag(result, QStringLiteral("side_stream_work"), true),
                 qPrintable(description));
        QCOMPARE(verdictName(result.verdict), QStringLiteral("pass"));
        // A disturbance found is said, and only as advice.
        QCOMPARE(hasFlag(result, QStringLiteral("timing_disturbed"), false),
                 !result.disturbance.isEmpty());
    }

    void sideStreamFlaggedUnderLoad()
    {
        const EvaluationResult result = evaluate(QStringLiteral("game_null_stream_variable.cu"));
        const QString description =
            describeResult(candidatePath(QStringLiteral("game_null_stream_variable.cu")), result);
        qInfo("%s timing %s", qPrintable(description), timingData(result).constData());
        QCOMPARE(verdictName(result.verdict), QStringLiteral("flagged"));
        QVERIFY2(hasFlag(result, QStringLiteral("side_stream_work"), true),
                 qPrintable(description));
        QVERIFY(result.disturbance.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestGpuDisturbance)
#include "tst_gpudisturbance.moc"
