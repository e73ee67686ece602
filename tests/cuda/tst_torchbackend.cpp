// End to end through the real PyTorch sandbox on a GPU: the problems under
// tests/data/kernelbench are imported, and every candidate under
// tests/data/kernelbench/candidates carries its expected verdict (and flag) in its first line:
//   # expect: task=NAME verdict=VERDICT [flag=ID]
// Without python3, torch or a GPU torch can see, the suite is skipped (ctest reports it so).
#include "candidatebatch.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::testing;

class TestTorchBackend : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tasksDir;
    TaskLibrary m_tasks;
    VerifierOptions m_options;
    std::unique_ptr<VerifierPool> m_pool;
    QHash<QString, EvaluationResult> m_results;
    QList<Expectation> m_expectations;
    static constexpr quint64 kSecret = 20261202;

    const Task &task(const QString &name)
    {
        const Task *t = m_tasks.task(name);
        Q_ASSERT(t);
        return *t;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tasksDir.isValid());
        const Tolerance tolerance{KernelBenchTaskLoader::kDefaultTolerance,
                                  KernelBenchTaskLoader::kDefaultTolerance, 0.0};
        const KernelBenchImporter::Report report =
            KernelBenchImporter::run(QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench"),
                                     m_tasksDir.path(), {}, tolerance, {});
        QCOMPARE(report.imported.size(), 4);
        QVERIFY(m_tasks.loadDirectory(m_tasksDir.path()) == 4);
        m_options = VerifierOptions::defaults();
        m_pool = std::make_unique<VerifierPool>(m_options, 6);
        const TorchEnvironment &torch = m_pool->verifier().torchEnvironment();
        if (!torch.usable)
            QSKIP(qPrintable(QStringLiteral("the pytorch backend cannot run: ") + torch.reason));
        qInfo("%s", qPrintable(torch.describe()));
        m_expectations =
            expectationsIn(QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/candidates"),
                           QStringLiteral("*.py"));
        QVERIFY(m_expectations.size() >= 10);
        QElapsedTimer timer;
        timer.start();
        QString missing;
        m_results = judgeAll(*m_pool, m_tasks, Backend::Torch, m_expectations, kSecret, &missing);
        QVERIFY2(missing.isEmpty(), qPrintable(missing + QStringLiteral(": its task is unknown")));
        qInfo("%lld PyTorch candidates evaluated in %lld ms", qint64(m_results.size()),
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
        QCOMPARE(result.backend, Backend::Torch);
        const QString mismatch = expectationMismatch(e, result);
        const StageResult *compile = result.stage(QStringLiteral("compile"));
        const StageResult *timing = result.stage(QStringLiteral("timing"));
        qInfo("%s: %s [speedup %s, vs torch.compile %s; compile %.1f s%s]",
              qPrintable(QFileInfo(path).fileName()), qPrintable(result.summary),
              result.speedup ? qPrintable(QString::number(*result.speedup, 'f', 2)) : "-",
              result.compiledSpeedup ? qPrintable(QString::number(*result.compiledSpeedup, 'f', 2))
                                     : "-",
              compile ? compile->ms / 1000.0 : 0.0,
              timing ? qPrintable(QStringLiteral("; timing %1").arg(timing->detail)) : "");
        QVERIFY2(mismatch.isEmpty(),
                 qPrintable(mismatch + QStringLiteral(": ") + describeResult(path, result)));
    }

    // Honest kernels pass with both baselines measured; the same source is built only once.
    void honestCandidatesHaveBothBaselinesAndACachedBuild()
    {
        int honest = 0;
        for (const Expectation &e : std::as_const(m_expectations)) {
            if (e.verdict != QLatin1String("pass"))
                continue;
            ++honest;
            const EvaluationResult first = m_results.value(e.path);
            QVERIFY2(first.baselineMs && *first.baselineMs > 0, qPrintable(e.path));
            QVERIFY2(first.candidateTiming.n >= 10, qPrintable(e.path));
            QElapsedTimer timer;
            timer.start();
            const EvaluationResult again = m_pool->verifier().evaluate(
                task(e.task), Backend::Torch, readFile(e.path), kSecret + 1);
            QCOMPARE(verdictName(again.verdict), QStringLiteral("pass"));
            const StageResult *compile = again.stage(QStringLiteral("compile"));
            QVERIFY(compile && compile->data.value(QStringLiteral("cached")).toBool());
            qInfo("%s again: %lld ms in all, build %.0f ms (cached)",
                  qPrintable(QFileInfo(e.path).fileName()), timer.elapsed(), compile->ms);
            break; // one is enough to show the cache
        }
        QVERIFY(honest > 0);
    }
};

QTEST_GUILESS_MAIN(TestTorchBackend)
#include "tst_torchbackend.moc"
