// SearchSession refuses a run whose policy cannot write for one of its tasks, before the run is
// stored: the offline policy on a KernelBench problem.
#include "engine/evaluator.h"
#include "engine/searchsession.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

// Never called: the session must be refused before anything is judged.
class NoEvaluator : public Evaluator
{
public:
    EvaluationResult evaluate(const Task &, Backend, const QString &, quint64,
                              const std::atomic<bool> &) override
    {
        ++calls;
        return {};
    }
    int concurrency() const override { return 1; }
    int calls = 0;
};

} // namespace

class TestSearchSession : public QObject
{
    Q_OBJECT

private slots:
    void offlinePolicyRefusesKernelBenchUpFront()
    {
        QTemporaryDir dir;
        const auto store = RunStore::open(dir.filePath(u"w.db"_s), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        TaskLibrary library;
        library.loadEmbedded();
        Task problem;
        problem.name = u"kb1_019_relu"_s;
        problem.title = u"ReLU"_s;
        problem.entry = u"ModelNew"_s;
        problem.kernelBench = KernelBenchProblem{1, 19, u"level1/19_ReLU.py"_s};
        problem.referenceSource.insert(Backend::Torch, u"import torch\n"_s);
        library.addTask(problem);
        RunConfig config;
        config.tasks = {problem.name};
        config.backend = Backend::Torch;
        config.policy = u"offline"_s;
        config.budget = 4;
        NoEvaluator evaluator;
        QString error;
        QVERIFY(!SearchSession::create(*store, library, evaluator, config, &error));
        // An inline-CUDA run (the default language), and a problem without a Triton space.
        QVERIFY2(error.contains(u"kb1_019_relu has no variant space of the offline policy in "
                                u"cuda"_s) &&
                     error.contains(u"use --policy llm (or replay/manual)"_s),
                 qPrintable(error));
        QVERIFY(store->runs().isEmpty()); // nothing stored, nothing judged
        QCOMPARE(evaluator.calls, 0);

        // A problem with a Triton space, in a Triton run: asked in the run's language, the
        // policy accepts it (the library's copy of the task carries no language).
        Task matmul = problem;
        matmul.name = u"kb1_001_square_matrix_multiplication"_s;
        matmul.kernelBench =
            KernelBenchProblem{1, 1, u"level1/1_Square_matrix_multiplication_.py"_s};
        matmul.referenceSource.insert(Backend::Torch,
                                      u"class Model(nn.Module):\n"
                                      "    def forward(self, A: torch.Tensor, B: torch.Tensor):\n"
                                      "        return torch.matmul(A, B)\n"_s);
        library.addTask(matmul);
        config.tasks = {matmul.name};
        config.language = u"triton"_s;
        error.clear();
        QVERIFY2(SearchSession::create(*store, library, evaluator, config, &error),
                 qPrintable(error));
        config.language = u"cuda"_s;
        QVERIFY(!SearchSession::create(*store, library, evaluator, config, &error));
    }
};

QTEST_GUILESS_MAIN(TestSearchSession)
#include "tst_searchsession.moc"
