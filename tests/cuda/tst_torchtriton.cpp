// Triton candidates end to end through the real PyTorch sandbox on a GPU, judged in a Triton
// run (VerifierOptions::torchLanguage): every file under tests/data/kernelbench/candidates/triton
// carries its expected verdict in its first line, as the inline-CUDA ones do. Also: the kernels
// compile (and autotune) on a warm-up call before the process loses exec, each evaluation with
// a compile cache of its own, and the cold time of a whole evaluation.
// Without python3, torch, Triton or a GPU torch can see, the suite is skipped.
#include "candidatebatch.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "torchpython.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace kiln;
using namespace kiln::testing;
using namespace Qt::StringLiterals;

class TestTorchTriton : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tasksDir;
    TaskLibrary m_tasks;
    VerifierOptions m_options;
    std::unique_ptr<VerifierPool> m_pool;
    QHash<QString, EvaluationResult> m_results;
    QList<Expectation> m_expectations;
    static constexpr quint64 kSecret = 20261206;

    static QString candidate(const QString &file)
    {
        return QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/candidates/triton/") + file;
    }

    const Task &task(const QString &name)
    {
        const Task *t = m_tasks.task(name);
        Q_ASSERT(t);
        return *t;
    }

    static QJsonObject compileData(const EvaluationResult &result)
    {
        const StageResult *stage = result.stage(u"compile"_s);
        return stage ? stage->data : QJsonObject{};
    }

    static QString text(const QJsonObject &object)
    {
        return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tasksDir.isValid());
        const Tolerance tolerance{KernelBenchTaskLoader::kDefaultTolerance,
                                  KernelBenchTaskLoader::kDefaultTolerance, 0.0};
        KernelBenchImporter::run(QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench"),
                                 m_tasksDir.path(), {}, tolerance, {});
        QVERIFY(m_tasks.loadDirectory(m_tasksDir.path()) == 4);
        m_options = VerifierOptions::defaults();
        m_options.torchLanguage = u"triton"_s;
        m_pool = std::make_unique<VerifierPool>(m_options, 4);
        const TorchEnvironment &torch = m_pool->verifier().torchEnvironment();
        if (const QString missing = kiln::test::tritonOnGpuMissing(torch, m_options.python);
            !missing.isEmpty())
            QSKIP(qPrintable(missing));
        qInfo("%s", qPrintable(torch.describe()));
        m_expectations = expectationsIn(candidate(QString()), u"*.py"_s);
        QVERIFY(m_expectations.size() >= 10);
        QElapsedTimer timer;
        timer.start();
        QString missing;
        m_results = judgeAll(*m_pool, m_tasks, Backend::Torch, m_expectations, kSecret, &missing);
        QVERIFY2(missing.isEmpty(), qPrintable(missing + u": its task is unknown"_s));
        qInfo("%lld Triton candidates evaluated in %lld ms", qint64(m_results.size()),
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
        const auto e = std::find_if(m_expectations.cbegin(), m_expectations.cend(),
                                    [&](const Expectation &x) { return x.path == path; });
        QVERIFY(e != m_expectations.cend());
        const EvaluationResult result = m_results.value(path);
        qInfo("%s compile %s", qPrintable(describeResult(path, result)),
              qPrintable(text(compileData(result))));
        const QString mismatch = expectationMismatch(*e, result);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch + u"\n"_s + describeResult(path, result)));
    }

    // An honest Triton candidate compiled on its warm-up call, in a cache of its own that was
    // empty before, its process lost exec afterwards, and autotune's choice is on record.
    void compiledOnTheFirstCallInACacheOfItsOwn()
    {
        const EvaluationResult tuned = m_results.value(candidate(u"small_matmul_autotuned.py"_s));
        const QJsonObject data = compileData(tuned);
        QVERIFY2(data.value(u"jit"_s).toBool(), qPrintable(text(data)));
        QCOMPARE(data.value(u"cache_files_before"_s).toInt(-1), 0);
        QVERIFY2(data.value(u"cache_files_after"_s).toInt() > 0, qPrintable(text(data)));
        QVERIFY2(data.value(u"compile_ms"_s).toDouble() > 0, qPrintable(text(data)));
        QCOMPARE(data.value(u"autotune"_s).toObject().size(), 1);
        const QString isolation = tuned.stage(u"verdict"_s)->data.value(u"isolation"_s).toString();
        QVERIFY2(isolation.contains(u"seccomp=1"_s), qPrintable(isolation));
        // Another evaluation of the same source compiles again, in another folder: no cache
        // (nor a binary one candidate planted there) is shared between candidates.
        QElapsedTimer timer;
        timer.start();
        const EvaluationResult again = m_pool->verifier().evaluate(
            task(u"kb1_003_small_matmul"_s), Backend::Torch,
            readFile(candidate(u"small_matmul_autotuned.py"_s)), kSecret + 1);
        const QJsonObject second = compileData(again);
        QCOMPARE(verdictName(again.verdict), u"pass"_s);
        QCOMPARE(second.value(u"cache_files_before"_s).toInt(-1), 0);
        QVERIFY(second.value(u"cache"_s).toString() != data.value(u"cache"_s).toString());
        qInfo("small_matmul_autotuned.py again: %lld ms in all, compile and autotune %.0f ms",
              timer.elapsed(), second.value(u"compile_ms"_s).toDouble());
    }

    // The cold time of a whole evaluation (screen to verdict) of an honest Triton candidate,
    // one at a time: p50 of three.
    void coldEvaluationTime()
    {
        QList<qint64> times;
        for (int i = 0; i < 3; ++i) {
            QElapsedTimer timer;
            timer.start();
            const EvaluationResult result = m_pool->verifier().evaluate(
                task(u"kb1_001_scaled_residual_add"_s), Backend::Torch,
                readFile(candidate(u"scaled_residual_add.py"_s)), kSecret + 10 + i);
            times.append(timer.elapsed());
            QCOMPARE(verdictName(result.verdict), u"pass"_s);
        }
        std::sort(times.begin(), times.end());
        qInfo("scaled_residual_add.py cold evaluations: %lld, %lld, %lld ms (p50 %lld ms)",
              times[0], times[1], times[2], times[1]);
    }
};

QTEST_GUILESS_MAIN(TestTorchTriton)
#include "tst_torchtriton.moc"
