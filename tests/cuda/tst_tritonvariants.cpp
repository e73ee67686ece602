// The offline policy's Triton variant spaces (tasks/kernelbench/) judged on a GPU: sampled
// variants of each space pass the real PyTorch pipeline in a Triton run, and every kind of
// defect the policy injects into them ends as its category says (a compile error, a wrong
// result, or the flag of the cheat). tst_tritonspaces checks, without a GPU, that every
// combination parses and passes the static screen. Skipped without torch, Triton or a GPU.
#include "candidateexpectation.h"
#include "policies/offline/counterrng.h"
#include "policies/offline/pythondefectinjector.h"
#include "policies/offline/variantspace.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "torchpython.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QElapsedTimer>
#include <QFuture>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::testing;
using namespace Qt::StringLiterals;

namespace {

const QStringList kProblems{u"kb1_001_square_matrix_multiplication"_s, u"kb1_088_mingptnewgelu"_s,
                            u"kb1_095_crossentropyloss"_s};

// The flag each gaming kind must raise (pythondefectinjector.cpp says why each one does).
const QMap<QString, QString> &gamingFlags()
{
    static const QMap<QString, QString> flags{{u"torch_fallback"_s, u"torch_library_compute"_s},
                                              {u"cached_result"_s, u"cached_result"_s},
                                              {u"patch_check"_s, u"torch_monkey_patch"_s},
                                              {u"precision_downgrade"_s, u"precision_downgrade"_s},
                                              {u"side_stream"_s, u"torch_stream"_s}};
    return flags;
}

struct Case
{
    QString label;
    QString task;
    QString source;
    Expectation expected;
    QFuture<EvaluationResult> result;
};

} // namespace

class TestTritonVariants : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tasksDir;
    TaskLibrary m_tasks;
    std::unique_ptr<VerifierPool> m_pool;
    QList<Case> m_cases;

    void addHonest(const VariantSpace &space)
    {
        // The policy's best guess, and four points spread over the space.
        QList<KnobConfig> configs{space.bestConfig()};
        const qint64 count = space.combinationCount();
        for (qint64 i = 0; i < 4; ++i)
            configs.append(space.configAt((i * count) / 4 + 7 * i % count));
        for (const KnobConfig &config : configs) {
            const QString knobs = QString::fromUtf8(
                QJsonDocument(VariantSpace::configToJson(config)).toJson(QJsonDocument::Compact));
            add(space.task() + u" "_s + knobs, space.task(), space.render(config).text, u"pass"_s,
                QString());
        }
    }

    // Each kind once, on the first problem from `rotation` on whose best variant has a site
    // for it (cross-entropy's launched kernel has no tl.arange for missing_constexpr, say).
    void addDefects(const QString &category, const QStringList &kinds, int *rotation)
    {
        for (const QString &kind : kinds) {
            for (int tries = 0; tries < kProblems.size(); ++tries) {
                const QString task = kProblems.at((*rotation)++ % kProblems.size());
                const auto space = VariantSpace::loadKernelBench(task, u"triton"_s);
                QString source = space->render(space->bestConfig()).text;
                CounterRng rng(20261207, quint64(*rotation), 1);
                const DefectInjector::Outcome outcome =
                    PythonDefectInjector::apply(&source, category, kind, rng);
                if (!outcome.applied || outcome.kind != kind)
                    continue;
                const QString verdict = category == u"gaming"_s ? u"flagged"_s : category;
                add(task + u" "_s + category + u":"_s + kind, task, source, verdict,
                    gamingFlags().value(kind));
                break;
            }
        }
    }

    void add(const QString &label, const QString &task, const QString &source,
             const QString &verdict, const QString &flag)
    {
        Case c{label, task, source, Expectation{label, task, verdict, flag, 0.0}, {}};
        c.result = m_pool->submit(*m_tasks.task(task), Backend::Torch, source, 20261207);
        m_cases.append(c);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tasksDir.isValid());
        const Tolerance tolerance{KernelBenchTaskLoader::kDefaultTolerance,
                                  KernelBenchTaskLoader::kDefaultTolerance, 0.0};
        KernelBenchImporter::run(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/triton_spaces"),
            m_tasksDir.path(), {}, tolerance, {});
        QCOMPARE(m_tasks.loadDirectory(m_tasksDir.path()), 3);
        VerifierOptions options = VerifierOptions::defaults();
        options.torchLanguage = u"triton"_s;
        m_pool = std::make_unique<VerifierPool>(options, 4);
        const TorchEnvironment &torch = m_pool->verifier().torchEnvironment();
        if (const QString missing = kiln::test::tritonOnGpuMissing(torch, options.python);
            !missing.isEmpty())
            QSKIP(qPrintable(missing));
        qInfo("%s", qPrintable(torch.describe()));
    }

    // Five variants of each space pass; each kind of defect is judged as what it is.
    void variantsAndDefects()
    {
        QElapsedTimer timer;
        timer.start();
        for (const QString &task : kProblems) {
            const auto space = VariantSpace::loadKernelBench(task, u"triton"_s);
            QVERIFY(space);
            addHonest(*space);
        }
        int rotation = 0;
        for (const QString &category : {u"compile_error"_s, u"wrong"_s, u"gaming"_s})
            addDefects(category, PythonDefectInjector::kinds(category, QString()), &rotation);
        QStringList failures;
        for (Case &c : m_cases) {
            const EvaluationResult result = c.result.result();
            qInfo("%s", qPrintable(describeResult(c.label, result)));
            const QString mismatch = expectationMismatch(c.expected, result);
            if (!mismatch.isEmpty())
                failures << c.label + u": "_s + mismatch;
        }
        qInfo("%lld evaluations in %lld ms", qint64(m_cases.size()), timer.elapsed());
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u"\n"_s)));
    }
};

QTEST_GUILESS_MAIN(TestTritonVariants)
#include "tst_tritonvariants.moc"
