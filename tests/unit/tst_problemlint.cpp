// Problem lint's judgement without running anything: facts (as the native linter and the
// PyTorch worker report them) become findings and a magnitude-aware tolerance; results survive
// a round trip through their JSON and the cache, count only for the task they were computed
// for, and lower the tolerance the verifier applies.
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "verifier/lint/lintcache.h"
#include "verifier/lint/lintfacts.h"
#include "verifier/lint/problemlint.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

const Tolerance kKernelBench{1e-2, 1e-2, 0.0};

LintFacts::Output output(double typical, bool varies = true)
{
    LintFacts::Output o;
    o.name = u"output 0"_s;
    o.typical = typical;
    o.mean = typical;
    o.constantAcrossSeeds = !varies;
    return o;
}

// An honest problem: every output varies, every input matters, no trivial answer passes.
LintFacts honest()
{
    LintFacts facts;
    facts.seeds = 4;
    facts.effectiveAbs = kKernelBench.abs;
    facts.outputs << output(0.8);
    facts.inputs << LintFacts::Input{u"x"_s, LintFacts::Change::Changes};
    facts.opsCoverage = u"2 torch calls recorded"_s;
    return facts;
}

QStringList ids(const ProblemLint &lint)
{
    QStringList list;
    for (const LintFinding &finding : lint.findings)
        list << finding.id;
    return list;
}

Task kernelBenchTask(const QString &folder)
{
    Task task;
    task.name = u"kb1_003_wide_softmax"_s;
    task.kernelBench = KernelBenchProblem{1, 3, u"level1/3_Wide_softmax.py"_s};
    task.directory = folder;
    task.referenceSource.insert(Backend::Torch, u"import torch\n"_s);
    task.tolerances.insert(u"f32"_s, kKernelBench);
    return task;
}

} // namespace

class TestProblemLint : public QObject
{
    Q_OBJECT

private slots:
    void honestProblemHasNoFindings()
    {
        const ProblemLint lint = ProblemLint::fromFacts(honest(), kKernelBench);
        QVERIFY(lint.linted());
        QVERIFY2(lint.findings.isEmpty(), qPrintable(lint.lines().join(u'\n')));
        QVERIFY(!lint.effectiveAbs);
        QCOMPARE(lint.lines(), QStringList{u"lint: no findings"_s});
    }

    void constantOutputAndUnusedInput()
    {
        LintFacts facts = honest();
        facts.outputs = {output(1.0, false)};
        facts.outputs[0].constant = {true, true};
        facts.inputs << LintFacts::Input{u"bias"_s, LintFacts::Change::None}
                     << LintFacts::Input{u"scale"_s, LintFacts::Change::WithinTolerance}
                     << LintFacts::Input{u"n"_s, LintFacts::Change::NotPerturbed};
        const ProblemLint lint = ProblemLint::fromFacts(facts, kKernelBench);
        QCOMPARE(ids(lint), (QStringList{u"constant_output"_s, u"unused_input"_s, u"unused_input"_s,
                                         u"constant_passes"_s}));
        QCOMPARE(lint.findings[1].subject, u"bias"_s);
        QVERIFY(lint.findings[1].detail.contains(u"bit for bit"_s));
        QVERIFY(lint.findings[2].detail.contains(u"beyond the tolerance"_s));
        // A constant of 1 is met whatever atol a magnitude rule gives: none is stated.
        QVERIFY(!lint.effectiveAbs);
        QVERIFY(lint.findings[3].detail.contains(u"cannot help"_s));
    }

    void zerosPassGiveAMagnitudeAwareTolerance()
    {
        LintFacts facts = honest();
        facts.outputs = {output(7.4e-5)};
        facts.outputs[0].zeros = {true, false};
        facts.outputs[0].constant = {true, false};
        facts.effectiveAbs = ProblemLint::magnitudeAbs(kKernelBench.abs, {7.4e-5});
        QCOMPARE(facts.effectiveAbs, 7.4e-7);
        const ProblemLint lint = ProblemLint::fromFacts(facts, kKernelBench);
        QCOMPARE(ids(lint), QStringList{u"zeros_pass"_s});
        QVERIFY(lint.effectiveAbs);
        QCOMPARE(*lint.effectiveAbs, 7.4e-7);
        QCOMPARE(lint.typicalMagnitude, 7.4e-5);
        QVERIFY2(lint.findings[0].detail.contains(u"with atol 7.4e-07 it fails"_s),
                 qPrintable(lint.findings[0].detail));
        QVERIFY(lint.toleranceText().startsWith(u"atol 0.01 -> 7.4e-07"_s));
        QCOMPARE(lint.lines().last(), u"tolerance: "_s + lint.toleranceText());

        // The verifier's tolerance: lowered once, and never raised by applying it again.
        Task task = kernelBenchTask(QString());
        lint.applyTo(task);
        QCOMPARE(task.tolerance(u"f32"_s).abs, 7.4e-7);
        QCOMPARE(task.tolerance(u"f32"_s).rel, kKernelBench.rel);
        lint.applyTo(task);
        QCOMPARE(task.tolerance(u"f32"_s).abs, 7.4e-7);
    }

    void magnitudeAbsNeverExceedsTheDeclaredOne()
    {
        QCOMPARE(ProblemLint::magnitudeAbs(1e-2, {}), 1e-2);
        QCOMPARE(ProblemLint::magnitudeAbs(1e-2, {0.0, 5.0}), 1e-2);
        QCOMPARE(ProblemLint::magnitudeAbs(1e-2, {0.0, 3e-3, 5.0}), 3e-5);
    }

    void inputsPassedThroughAndRedundantOps()
    {
        LintFacts facts = honest();
        facts.outputs[0].inputs << LintFacts::PassedInput{u"x"_s, {true, true}};
        facts.ops << LintFacts::Op{3, u"clamp"_s, u"sigmoid"_s, true}
                  << LintFacts::Op{1, u"add"_s, QString(), false};
        facts.nondeterminism = u"beyond_tolerance"_s;
        const ProblemLint lint = ProblemLint::fromFacts(facts, kKernelBench);
        QCOMPARE(ids(lint), (QStringList{u"input_passes"_s, u"redundant_op"_s, u"redundant_op"_s,
                                         u"nondeterministic_reference"_s}));
        QCOMPARE(lint.findings[1].subject, u"clamp (call 3)"_s);
        QVERIFY(lint.findings[1].detail.contains(u"changes nothing"_s));
        QVERIFY(lint.findings[1].detail.contains(u"after sigmoid"_s));
        QVERIFY(lint.findings[2].detail.contains(u"removing it"_s));
    }

    void workerDocument()
    {
        const QByteArray reply = R"({"seeds":4,"nondeterminism":"none","effective_atol":7e-07,
            "outputs":[{"index":0,"name":"output 0","typical":7e-05,"mean":0.000122,
              "constant_across_seeds":false,"zeros":[true,false],"constant":[true,false],
              "inputs":[{"input":0,"pass":[false,false]}]}],
            "inputs":[{"index":0,"name":"x","change":"changes"},
                      {"index":1,"name":"bias","change":"none"},
                      {"index":2,"name":"input 2","change":"not_a_tensor"}],
            "ops":{"recorded":3,"eligible":2,"tried":1,"untried":0,
                   "noop":[{"index":2,"name":"clamp","after":"sigmoid"}],"removable":[]}})";
        const LintFacts facts = LintFacts::fromWorkerJson(QJsonDocument::fromJson(reply).object());
        QCOMPARE(facts.seeds, 4);
        QCOMPARE(facts.effectiveAbs, 7e-7);
        QCOMPARE(facts.outputs.size(), 1);
        QVERIFY(facts.outputs[0].zeros.declared && !facts.outputs[0].zeros.effective);
        QCOMPARE(facts.outputs[0].inputs.value(0).input, u"x"_s);
        QCOMPARE(facts.inputs.size(), 3);
        QCOMPARE(facts.inputs[1].change, LintFacts::Change::None);
        QCOMPARE(facts.inputs[2].change, LintFacts::Change::NotPerturbed);
        QCOMPARE(facts.ops.size(), 1);
        QVERIFY(facts.ops[0].noOp);
        QVERIFY(facts.opsCoverage.startsWith(u"3 torch calls recorded, 2 ops"_s));
        const QJsonObject untraced{{u"ops"_s, QJsonObject{{u"note"_s, u"no TorchFunctionMode"_s}}}};
        QCOMPARE(LintFacts::fromWorkerJson(untraced).opsCoverage, u"no TorchFunctionMode"_s);
    }

    void jsonRoundTrip()
    {
        LintFacts facts = honest();
        facts.outputs = {output(7.4e-5)};
        facts.outputs[0].zeros = {true, false};
        facts.effectiveAbs = 7.4e-7;
        ProblemLint lint = ProblemLint::fromFacts(facts, kKernelBench);
        lint.taskHash = u"0123456789abcdef"_s;
        const ProblemLint back = ProblemLint::fromJson(lint.toJson());
        QCOMPARE(back.toJson(), lint.toJson());
        QCOMPARE(back.findings, lint.findings);
        QCOMPARE(*back.effectiveAbs, *lint.effectiveAbs);
        QCOMPARE(ProblemLint::fromJson(ProblemLint::notLinted(u"no torch (x)"_s).toJson()).lines(),
                 QStringList{u"not linted: no torch (x)"_s});
        QCOMPARE(ProblemLint::failed(u"boom"_s).stateName(), u"failed"_s);
    }

    void hashCoversWhatLintDependsOn()
    {
        TaskLibrary library;
        library.loadEmbedded();
        const Task *softmax = library.task(u"softmax"_s);
        QVERIFY(softmax);
        const QString hash = ProblemLint::hashOf(*softmax);
        QCOMPARE(hash.size(), 16);
        Task renamed = *softmax;
        renamed.title = u"Another title"_s;
        QCOMPARE(ProblemLint::hashOf(renamed), hash);
        Task looser = *softmax;
        looser.tolerances[u"f32"_s].abs = 1e-3;
        QVERIFY(ProblemLint::hashOf(looser) != hash);
        Task edited = *softmax;
        edited.referenceSource[Backend::Cpu] += u"\n// edited\n"_s;
        QVERIFY(ProblemLint::hashOf(edited) != hash);
        Task reshaped = *softmax;
        reshaped.correctnessShapes.removeLast();
        QVERIFY(ProblemLint::hashOf(reshaped) != hash);
    }

    void cacheKeepsEachTaskWhereItBelongs()
    {
        QTemporaryDir cache, problem;
        const LintCache lints(cache.path() + u"/lint"_s);
        TaskLibrary library;
        library.loadEmbedded();
        const Task builtIn = *library.task(u"vector_add"_s);
        const Task imported = kernelBenchTask(problem.path());
        QVERIFY(!lints.find(builtIn));
        QVERIFY(lints.stored(builtIn).lines().first().startsWith(u"not linted"_s));

        LintFacts facts = honest();
        facts.outputs = {output(7.4e-5)};
        facts.outputs[0].zeros = {true, false};
        facts.effectiveAbs = 7.4e-7;
        for (const Task &task : {builtIn, imported}) {
            ProblemLint lint = ProblemLint::fromFacts(facts, task.tolerance(u"f32"_s));
            lint.taskHash = ProblemLint::hashOf(task);
            QString error;
            QVERIFY2(lints.store(task, lint, &error), qPrintable(error));
            QVERIFY(lints.find(task));
        }
        // A built-in task is a read-only resource: its lint lives in the cache folder; an
        // imported problem keeps lint.json beside its task.json.
        QVERIFY(lints.pathFor(builtIn).startsWith(cache.path() + u"/lint/vector_add-"_s));
        QCOMPARE(lints.pathFor(imported), problem.path() + u"/lint.json"_s);
        QVERIFY(QFile::exists(problem.path() + u"/lint.json"_s));
        QCOMPARE(lints.applied(imported).tolerance(u"f32"_s).abs, 7.4e-7);

        // A changed task (another tolerance) no longer matches what was kept.
        Task changed = imported;
        changed.tolerances[u"f32"_s].rel = 1e-3;
        QVERIFY(!lints.find(changed));
        QCOMPARE(lints.applied(changed).tolerance(u"f32"_s).abs, kKernelBench.abs);
        // Only linted results are kept: "not linted" depends on this machine.
        QString error;
        QVERIFY(lints.store(changed, ProblemLint::notLinted(u"no torch"_s), &error));
        QVERIFY(!lints.find(changed));
    }
};

QTEST_GUILESS_MAIN(TestProblemLint)
#include "tst_problemlint.moc"
