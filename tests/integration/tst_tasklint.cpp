// Problem lint end to end (docs/tasks.md, "Problem lint"): Kiln's own tasks through their CPU
// references in kiln-sandbox (no findings), a weak task of the same format
// (tests/data/tasklint), and the KernelBench-style problems of tests/data/kernelbench/lint
// through the PyTorch worker on torch's CPU device (skipped without a python3 that has torch;
// the GPU machine runs them). Then what the verifier and kiln-cli make of the findings.
#include "kilncli.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "tasks/taskloader.h"
#include "torchpython.h"
#include "verifier/lint/problemlinter.h"
#include "verifier/verifier.h"

#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::test;
using namespace Qt::StringLiterals;

namespace {

const QString kWeakTasks = QStringLiteral(KILN_SOURCE_DIR "/tests/data/tasklint");
const QString kProblems = QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/lint");

const LintFinding *findingOf(const ProblemLint &lint, const QString &id)
{
    for (const LintFinding &finding : lint.findings)
        if (finding.id == id)
            return &finding;
    return nullptr;
}

QString describe(const ProblemLint &lint)
{
    return lint.stateName() + u": "_s + lint.note + u" | "_s + lint.lines().join(u" | "_s);
}

} // namespace

class TestTaskLint : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;
    QTemporaryDir m_problems;
    VerifierOptions m_options;

    QProcessEnvironment cliEnvironment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"KILN_CACHE_DIR"_s, m_options.cacheDirectory);
        return environment;
    }

private slots:
    void initTestCase()
    {
        m_options = VerifierOptions::defaults();
        m_options.cacheDirectory = m_cache.path() + u"/compile"_s;
        m_options.torchExtensionCache = m_cache.path() + u"/torch-extensions"_s;
        m_options.runTiming = false;
        QVERIFY2(QFileInfo(m_options.sandbox.executable).isExecutable(),
                 qPrintable(m_options.sandbox.executable));
    }

    void builtInTasksHaveNoFindings()
    {
        TaskLibrary library;
        library.loadEmbedded();
        QCOMPARE(library.tasks().size(), 6);
        ProblemLinter linter(m_options);
        for (const Task &task : library.tasks()) {
            const ProblemLint lint = linter.lint(task);
            QVERIFY2(lint.linted(), qPrintable(task.name + u": "_s + describe(lint)));
            QVERIFY2(lint.findings.isEmpty(), qPrintable(task.name + u": "_s + describe(lint)));
            QVERIFY(!lint.effectiveAbs);
            // Kept: the next look finds it without running anything.
            QVERIFY(linter.cache().find(task));
        }
    }

    void weakTaskIsFoundAndJudgedByMagnitude()
    {
        const TaskLoader::Result loaded = TaskLoader::load(kWeakTasks + u"/scaled_down"_s);
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorStrings().join(u"; "_s)));
        const Task &task = *loaded.task;
        ProblemLinter linter(m_options);
        const ProblemLint lint = linter.lint(task);
        QVERIFY2(lint.linted(), qPrintable(describe(lint)));
        const LintFinding *zeros = findingOf(lint, u"zeros_pass"_s);
        QVERIFY2(zeros, qPrintable(describe(lint)));
        QCOMPARE(zeros->subject, u"y"_s);
        QVERIFY2(zeros->detail.contains(u"it fails"_s), qPrintable(zeros->detail));
        const LintFinding *unused = findingOf(lint, u"unused_input"_s);
        QVERIFY2(unused && unused->subject == u"w"_s, qPrintable(describe(lint)));
        QVERIFY(!findingOf(lint, u"constant_output"_s));
        // 1e-2 x the median |y|: |x| has a median near 0.6, so about 6e-11, far below 1e-5.
        QVERIFY(lint.effectiveAbs);
        QVERIFY2(*lint.effectiveAbs < 1e-9 && *lint.effectiveAbs > 1e-12,
                 qPrintable(lint.toleranceText()));
        QCOMPARE(*lint.effectiveAbs, ProblemLint::kMagnitudeFraction * lint.typicalMagnitude);

        // The verifier applies it: an all-zero answer is no longer correct, the reference
        // still passes.
        Verifier verifier(m_options);
        const QString zeros_ =
            u"extern \"C\" void scaled_down(const float *x, const float *w, float *y, int n)\n"
            "{\n    for (int i = 0; i < n; ++i)\n        y[i] = 0.0f;\n}\n"_s;
        const EvaluationResult wrong = verifier.evaluate(task, Backend::Cpu, zeros_, 7);
        QVERIFY2(!wrong.correct && wrong.verdict != Verdict::Pass, qPrintable(wrong.summary));
        const StageResult *checked = wrong.stage(u"correctness"_s);
        QVERIFY2(checked && !checked->ok, qPrintable(wrong.summary));
        const EvaluationResult honest =
            verifier.evaluate(task, Backend::Cpu, task.referenceSource.value(Backend::Cpu), 7);
        QVERIFY2(honest.verdict == Verdict::Pass, qPrintable(honest.summary));
    }

    void cliShowsAndCountsFindings()
    {
        const CliOutcome lint =
            runCli({u"lint-tasks"_s, kWeakTasks, u"--json"_s}, 240000, cliEnvironment());
        QVERIFY2(lint.status == 0, lint.err.constData());
        const QJsonObject counts = lint.json().value(u"counts"_s).toObject();
        QCOMPARE(counts.value(u"linted"_s).toInt(), 1);
        QCOMPARE(counts.value(u"with_findings"_s).toInt(), 1);
        QCOMPARE(counts.value(u"by_class"_s).toObject().value(u"zeros_pass"_s).toInt(), 1);
        QCOMPARE(counts.value(u"by_class"_s).toObject().value(u"unused_input"_s).toInt(), 1);

        const CliOutcome text =
            runCli({u"tasks"_s, u"--tasks-dir"_s, kWeakTasks}, 60000, cliEnvironment());
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains("zeros_pass y: an all-zero answer meets atol 1e-05"),
                 text.out.constData());
        QVERIFY(text.out.contains("unused_input w:"));
        QVERIFY(text.out.contains("tolerance: atol 1e-05 ->"));
        const CliOutcome json = runCli({u"tasks"_s, u"--tasks-dir"_s, kWeakTasks, u"--json"_s},
                                       60000, cliEnvironment());
        for (const QJsonValue &value : json.json().value(u"tasks"_s).toArray()) {
            const QJsonObject task = value.toObject();
            const QJsonObject lintOf = task.value(u"lint"_s).toObject();
            QVERIFY(lintOf.contains(u"state"_s));
            if (task.value(u"name"_s).toString() == u"scaled_down"_s)
                QVERIFY(lintOf.value(u"tolerance"_s).toObject().contains(u"effective_abs"_s));
        }
    }

    void importWithoutTorchSaysNotLinted()
    {
        QProcessEnvironment environment = cliEnvironment();
        environment.insert(u"KILN_PYTHON"_s, u"/bin/false"_s);
        QTemporaryDir out;
        const CliOutcome o =
            runCli({u"import-kernelbench"_s, kProblems, u"--out"_s, out.path(), u"--json"_s},
                   240000, environment);
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonObject lint = o.json().value(u"lint"_s).toObject();
        QCOMPARE(lint.value(u"counts"_s).toObject().value(u"not_linted"_s).toInt(), 5);
        const QJsonObject first = lint.value(u"tasks"_s).toArray().first().toObject();
        QVERIFY2(
            first.value(u"lint"_s).toObject().value(u"note"_s).toString().startsWith(u"no torch"_s),
            o.out.constData());
        const CliOutcome text = runCli({u"import-kernelbench"_s, kProblems, u"--out"_s, out.path()},
                                       240000, environment);
        QVERIFY2(text.out.contains("lint 5 tasks not linted: no torch"), text.out.constData());
    }

    void kernelBenchProblems()
    {
        m_options.python = kiln::test::pythonWithTorch(m_options.python);
        if (m_options.python.isEmpty())
            QSKIP("no python3 with torch here");
        VerifierOptions options = m_options;
        options.torchDevice = u"cpu"_s;
        const KernelBenchImporter::Report report =
            KernelBenchImporter::run(kProblems, m_problems.path(), {},
                                     {KernelBenchTaskLoader::kDefaultTolerance,
                                      KernelBenchTaskLoader::kDefaultTolerance, 0.0},
                                     {});
        QCOMPARE(report.imported.size(), 5);
        TaskLibrary library;
        QCOMPARE(library.loadDirectory(m_problems.path()), 5);
        ProblemLinter linter(options);
        QMap<QString, ProblemLint> lints;
        for (const Task &task : library.tasks()) {
            lints.insert(task.name, linter.lint(task));
            QVERIFY2(lints[task.name].linted(), qPrintable(task.name + describe(lints[task.name])));
            qInfo("%s: %s", qPrintable(task.name), qPrintable(describe(lints[task.name])));
        }
        const ProblemLint constant = lints.value(u"kb1_001_linear_mean_softmax"_s);
        QVERIFY2(findingOf(constant, u"constant_output"_s), qPrintable(describe(constant)));
        QVERIFY(findingOf(constant, u"unused_input"_s));
        QVERIFY(findingOf(constant, u"constant_passes"_s));

        const ProblemLint unused = lints.value(u"kb1_002_relu_unused_bias"_s);
        QCOMPARE(unused.findings.size(), 1);
        QCOMPARE(unused.findings[0].id, u"unused_input"_s);
        QCOMPARE(unused.findings[0].subject, u"bias"_s);

        const ProblemLint wide = lints.value(u"kb1_003_wide_softmax"_s);
        QVERIFY2(findingOf(wide, u"zeros_pass"_s), qPrintable(describe(wide)));
        QVERIFY(wide.effectiveAbs);
        QVERIFY2(*wide.effectiveAbs < 1e-5, qPrintable(wide.toleranceText()));
        QVERIFY(!findingOf(wide, u"redundant_op"_s));

        const ProblemLint honest = lints.value(u"kb1_004_matmul_gelu"_s);
        QVERIFY2(honest.findings.isEmpty(), qPrintable(describe(honest)));
        QVERIFY(!honest.effectiveAbs);

        const ProblemLint clamp = lints.value(u"kb1_005_sigmoid_clamp"_s);
        const LintFinding *redundant = findingOf(clamp, u"redundant_op"_s);
        QVERIFY2(redundant && redundant->subject.startsWith(u"clamp"_s),
                 qPrintable(describe(clamp)));
        QVERIFY(redundant->detail.contains(u"sigmoid"_s));

        // The magnitude-aware atol decides: an all-zero ModelNew is not correct.
        Verifier verifier(options);
        const QString zeros_ =
            u"import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n\n"
            "    def forward(self, x):\n        return torch.zeros_like(x)\n"_s;
        const EvaluationResult result =
            verifier.evaluate(*library.task(u"kb1_003_wide_softmax"_s), Backend::Torch, zeros_, 11);
        QVERIFY2(!result.correct && result.verdict != Verdict::Pass, qPrintable(result.summary));
        const StageResult *checked = result.stage(u"correctness"_s);
        QVERIFY2(checked && !checked->ok, qPrintable(result.summary));
    }
};

QTEST_GUILESS_MAIN(TestTaskLint)
#include "tst_tasklint.moc"
