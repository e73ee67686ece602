#include "policies/feedbacksummary.h"
#include "policies/promptbuilder.h"
#include "tasks/tasklibrary.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

Task softmax()
{
    Task t;
    t.name = QStringLiteral("softmax");
    t.entry = QStringLiteral("softmax");
    t.title = QStringLiteral("Row softmax");
    t.description = QStringLiteral("Numerically stable softmax of each row.");
    TaskParameter x;
    x.name = QStringLiteral("x");
    x.dtype = QStringLiteral("f32");
    x.shape = {QStringLiteral("rows"), QStringLiteral("cols")};
    TaskParameter y = x;
    y.name = QStringLiteral("y");
    y.role = TaskParameter::Role::Output;
    TaskParameter rows;
    rows.name = QStringLiteral("rows");
    rows.role = TaskParameter::Role::Scalar;
    rows.dtype = QStringLiteral("i32");
    rows.value = QStringLiteral("rows");
    TaskParameter cols = rows;
    cols.name = QStringLiteral("cols");
    cols.value = QStringLiteral("cols");
    t.sizes = {QStringLiteral("rows"), QStringLiteral("cols")};
    t.parameters = {x, y, rows, cols};
    t.forbiddenLibraries = {QStringLiteral("cudnn")};
    t.referenceSource.insert(Backend::Cpu, QStringLiteral("//"));
    t.referenceSource.insert(Backend::Cuda, QStringLiteral("//"));
    return t;
}

const QString kReluSource =
    QStringLiteral("import torch\n"
                   "import torch.nn as nn\n"
                   "\n"
                   "class Model(nn.Module):\n"
                   "    \"\"\"Simple model that performs a ReLU activation.\"\"\"\n"
                   "    def __init__(self):\n"
                   "        super(Model, self).__init__()\n"
                   "\n"
                   "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
                   "        return torch.relu(x)  # {{not_a_placeholder}}\n"
                   "\n"
                   "batch_size = 16\n"
                   "dim = 16384\n"
                   "\n"
                   "def get_inputs():\n"
                   "    x = torch.randn(batch_size, dim)\n"
                   "    return [x]\n"
                   "\n"
                   "def get_init_inputs():\n"
                   "    return []\n");

Task kernelBenchRelu()
{
    Task t;
    t.name = QStringLiteral("kb1_019_relu");
    t.title = QStringLiteral("ReLU");
    t.description = QStringLiteral("Simple model that performs a ReLU activation.");
    t.entry = QStringLiteral("ModelNew");
    t.kernelBench = KernelBenchProblem{1, 19, QStringLiteral("level1/19_ReLU.py")};
    t.tolerances.insert(QStringLiteral("f32"), Tolerance{0.02, 0.01, 0.0});
    t.referenceSource.insert(Backend::Torch, kReluSource);
    return t;
}

EvaluationResult wrongResult()
{
    EvaluationResult e;
    e.verdict = Verdict::Wrong;
    e.summary = QStringLiteral("3 of 5 shapes mismatch");
    StageResult compile;
    compile.name = QStringLiteral("compile");
    compile.ok = true;
    StageResult correctness;
    correctness.name = QStringLiteral("correctness");
    correctness.ok = false;
    correctness.detail = QStringLiteral("rows=7,cols=1000: max abs error 0.25");
    correctness.data = QJsonObject{{QStringLiteral("max_abs_error"), 0.25},
                                   {QStringLiteral("first_mismatch"), 7001}};
    e.stages = {compile, correctness};
    CheatFlag flag;
    flag.id = QStringLiteral("static_state");
    flag.message = QStringLiteral("a static variable keeps state between calls");
    flag.lines = {12};
    flag.blocking = true;
    e.flags = {flag};
    return e;
}

} // namespace

class TestPromptBuilder : public QObject
{
    Q_OBJECT

private slots:
    void embeddedTemplatesExist();
    void operations_data();
    void operations();
    void userOverridesWin();
    void renderLeavesUnknownPlaceholders();
    void feedbackSummary();
    void everyEmbeddedTask();
    void cPromptsKeepTheEntryPoint();
    void kernelBench_data();
    void kernelBench();
    void kernelBenchFeedbackNamesTorchCompile();
    void kernelBenchAsksForTheRunsLanguage();
};

void TestPromptBuilder::embeddedTemplatesExist()
{
    PromptBuilder builder;
    for (const QString &name : PromptBuilder::templateNames())
        QVERIFY2(!builder.templateText(name).trimmed().isEmpty(), qPrintable(name));
    QVERIFY(builder.overriddenTemplates().isEmpty());
}

void TestPromptBuilder::operations_data()
{
    QTest::addColumn<int>("operation");
    QTest::addColumn<int>("backend");
    QTest::addColumn<int>("parents");
    QTest::addColumn<QStringList>("contains");
    QTest::addColumn<QStringList>("absent");

    const QString cpuSig =
        QStringLiteral("void softmax(const float* x, float* y, int rows, int cols)");
    QTest::newRow("first cpu") << int(Operation::Sample) << int(Backend::Cpu) << 0
                               << QStringList{QStringLiteral("Row softmax"),
                                              QStringLiteral("Numerically stable"), cpuSig,
                                              QStringLiteral("-fopenmp"), QStringLiteral("cudnn")}
                               << QStringList{QStringLiteral("{{"),
                                              QStringLiteral("Previous attempt")};
    // Both CUDA forms: a host entry, or the kernel as the entry with its launch line.
    QTest::newRow("first cuda")
        << int(Operation::Sample) << int(Backend::Cuda) << 0
        << QStringList{QStringLiteral("cudaStream_t stream"), QStringLiteral("non-blocking"),
                       QStringLiteral("extern \"C\" __global__ void softmax(const float* x, "
                                      "float* y, int rows, int cols)`"),
                       QStringLiteral("// kiln-launch: grid="),
                       QStringLiteral("The expressions use the sizes rows, cols,")}
        << QStringList{QStringLiteral("{{"), QStringLiteral("-fopenmp")};
    QTest::newRow("refine") << int(Operation::Refine) << int(Backend::Cpu) << 1
                            << QStringList{QStringLiteral("PARENT_ONE"),
                                           QStringLiteral("Verdict: wrong"),
                                           QStringLiteral("max_abs_error=0.25"),
                                           QStringLiteral("static_state (blocking)"),
                                           QStringLiteral("[lines 12]"),
                                           QStringLiteral("Fix the problems")}
                            << QStringList{QStringLiteral("{{"), QStringLiteral("PARENT_TWO")};
    QTest::newRow("mutate uses refine")
        << int(Operation::Mutate) << int(Backend::Cpu) << 1
        << QStringList{QStringLiteral("PARENT_ONE"), QStringLiteral("substantially different")}
        << QStringList{QStringLiteral("{{")};
    QTest::newRow("crossover") << int(Operation::Crossover) << int(Backend::Cuda) << 2
                               << QStringList{QStringLiteral("PARENT_ONE"),
                                              QStringLiteral("PARENT_TWO"),
                                              QStringLiteral("Kernel B"), QStringLiteral("```cuda")}
                               << QStringList{QStringLiteral("{{")};
}

void TestPromptBuilder::operations()
{
    QFETCH(int, operation);
    QFETCH(int, backend);
    QFETCH(int, parents);
    QFETCH(QStringList, contains);
    QFETCH(QStringList, absent);
    const Task task = softmax();
    GenerationRequest request;
    request.task = &task;
    request.operation = Operation(operation);
    request.backend = Backend(backend);
    for (int i = 0; i < parents; ++i) {
        CandidateRecord parent;
        parent.id = i + 1;
        parent.source =
            i == 0 ? QStringLiteral("// PARENT_ONE\n") : QStringLiteral("// PARENT_TWO\n");
        request.parents << parent;
        request.parentEvaluations << wrongResult();
    }
    PromptBuilder builder;
    const Prompt prompt = builder.build(request);
    QVERIFY(prompt.system.contains(QStringLiteral("extern \"C\"")));
    const QString all = prompt.transcript();
    QVERIFY(all.contains(prompt.system));
    QVERIFY(all.contains(prompt.user));
    for (const QString &needle : contains)
        QVERIFY2(prompt.user.contains(needle),
                 qPrintable(needle + QStringLiteral(" missing in:\n") + prompt.user));
    for (const QString &needle : absent)
        QVERIFY2(!prompt.user.contains(needle),
                 qPrintable(needle + QStringLiteral(" present in:\n") + prompt.user));
}

void TestPromptBuilder::userOverridesWin()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile file(dir.filePath(QStringLiteral("first.md")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("MY PROMPT for {{task_name}} / {{entry}} / {{unknown_thing}}");
    file.close();
    const Task task = softmax();
    GenerationRequest request;
    request.task = &task;
    PromptBuilder builder(dir.path());
    QCOMPARE(builder.overriddenTemplates(), QStringList{QStringLiteral("first")});
    QCOMPARE(builder.build(request).user,
             QStringLiteral("MY PROMPT for softmax / softmax / {{unknown_thing}}"));
    // The other templates are still the embedded ones.
    QCOMPARE(builder.templateText(QStringLiteral("refine")),
             PromptBuilder().templateText(QStringLiteral("refine")));
}

void TestPromptBuilder::renderLeavesUnknownPlaceholders()
{
    const QMap<QString, QString> values{{QStringLiteral("a"), QStringLiteral("{{b}}")},
                                        {QStringLiteral("b"), QStringLiteral("B")}};
    // Substituted text is not scanned again (a source containing "{{" stays intact).
    QCOMPARE(PromptBuilder::render(QStringLiteral("x {{a}} {{ b }} {{c}}"), values),
             QStringLiteral("x {{b}} B {{c}}"));
}

void TestPromptBuilder::feedbackSummary()
{
    EvaluationResult compileError;
    compileError.verdict = Verdict::CompileError;
    StageResult compile;
    compile.name = QStringLiteral("compile");
    compile.ok = false;
    compile.detail = QStringLiteral("2 errors");
    compile.data =
        QJsonObject{{QStringLiteral("log"), QStringLiteral("k.cpp:3: error: 'x' undeclared")}};
    compileError.stages = {compile};
    const QString text = FeedbackSummary::describe(compileError);
    QVERIFY(text.startsWith(QStringLiteral("Verdict: compile_error")));
    QVERIFY(text.contains(QStringLiteral("Stage compile: FAILED - 2 errors")));
    QVERIFY(text.contains(QStringLiteral("'x' undeclared")));

    EvaluationResult pass;
    pass.verdict = Verdict::Pass;
    pass.correct = true;
    pass.speedup = 2.5;
    pass.candidateMs = 0.4;
    pass.baselineMs = 1.0;
    pass.rooflineFraction = 0.61;
    const QString fast = FeedbackSummary::describe(pass);
    QVERIFY(fast.contains(QStringLiteral("speedup 2.5x")));
    QVERIFY(fast.contains(QStringLiteral("Roofline: 61%")));

    // Long diagnostics are cut so a prompt never balloons.
    compile.data = QJsonObject{{QStringLiteral("log"), QString(20000, QLatin1Char('e'))}};
    compileError.stages = {compile};
    QVERIFY(FeedbackSummary::describe(compileError).size() < 2200);
}

void TestPromptBuilder::everyEmbeddedTask()
{
    TaskLibrary library;
    library.loadEmbedded();
    QVERIFY(!library.names().isEmpty());
    PromptBuilder builder;
    for (const Task &task : library.tasks()) {
        for (Backend backend : task.backends()) {
            for (Operation op : {Operation::Sample, Operation::Refine, Operation::Crossover}) {
                GenerationRequest request;
                request.task = &task;
                request.backend = backend;
                request.operation = op;
                const int parents = op == Operation::Sample ? 0 : op == Operation::Refine ? 1 : 2;
                for (int i = 0; i < parents; ++i) {
                    CandidateRecord parent;
                    parent.source = task.referenceSource.value(backend);
                    request.parents << parent;
                    request.parentEvaluations << wrongResult();
                }
                const Prompt prompt = builder.build(request);
                const QString where = task.name + QLatin1Char('/') + backendName(backend) +
                                      QLatin1Char('/') + operationName(op);
                QVERIFY2(prompt.user.contains(task.signature(backend)), qPrintable(where));
                QVERIFY2(!prompt.user.contains(QStringLiteral("{{")), qPrintable(where));
                QVERIFY2(prompt.user.contains(task.description.trimmed().left(40)),
                         qPrintable(where));
                if (qEnvironmentVariableIsSet("KILN_PRINT_PROMPTS") &&
                    task.name == QStringLiteral("softmax"))
                    qInfo().noquote() << "=====" << where << "\n" << prompt.transcript();
            }
        }
    }
}

void TestPromptBuilder::cPromptsKeepTheEntryPoint()
{
    const Task task = softmax();
    GenerationRequest request;
    request.task = &task;
    request.backend = Backend::Cuda;
    const Prompt prompt = PromptBuilder().build(request);
    QVERIFY2(prompt.user.contains(
                 u"## Entry point\n\nImplement this function (backend: CUDA):\n\n```\nextern "
                 u"\"C\" void softmax(const float* x, float* y, int rows, int cols, "
                 u"cudaStream_t stream)\n```"_s),
             qPrintable(prompt.user));
    QVERIFY(prompt.system.contains(u"declared `extern \"C\"`"_s));
    for (const QString &text : {prompt.system, prompt.user}) {
        QVERIFY2(!text.contains(u"ModelNew"_s), qPrintable(text));
        QVERIFY2(!text.contains(u"{{"_s), qPrintable(text));
    }
}

void TestPromptBuilder::kernelBench_data()
{
    QTest::addColumn<int>("operation");
    QTest::addColumn<int>("backend"); // what the request names; the task decides
    QTest::addColumn<int>("parents");
    QTest::addColumn<QStringList>("contains");
    QTest::newRow("first") << int(Operation::Sample) << int(Backend::Torch) << 0
                           << QStringList{u"Write a correct kernel"_s};
    QTest::newRow("first, request says cuda")
        << int(Operation::Sample) << int(Backend::Cuda) << 0 << QStringList{};
    QTest::newRow("refine") << int(Operation::Refine) << int(Backend::Torch) << 1
                            << QStringList{u"## Previous attempt\n\n```python\n# PARENT_ONE\n"_s,
                                           u"Verdict: wrong"_s, u"Fix the problems"_s};
    QTest::newRow("crossover") << int(Operation::Crossover) << int(Backend::Torch) << 2
                               << QStringList{u"## Kernel A\n\n```python\n# PARENT_ONE\n"_s,
                                              u"## Kernel B\n\n```python\n# PARENT_TWO\n"_s,
                                              u"Combine the strengths"_s};
}

void TestPromptBuilder::kernelBench()
{
    QFETCH(int, operation);
    QFETCH(int, backend);
    QFETCH(int, parents);
    QFETCH(QStringList, contains);
    const Task task = kernelBenchRelu();
    GenerationRequest request;
    request.task = &task;
    request.backend = Backend(backend);
    request.operation = Operation(operation);
    for (int i = 0; i < parents; ++i) {
        CandidateRecord parent;
        parent.id = i + 1;
        parent.source = i == 0 ? u"# PARENT_ONE\nclass ModelNew(nn.Module): ...\n"_s
                               : u"# PARENT_TWO\nclass ModelNew(nn.Module): ...\n"_s;
        request.parents << parent;
        request.parentEvaluations << wrongResult();
    }
    const Prompt prompt = PromptBuilder().build(request);
    const QStringList expected =
        contains +
        QStringList{// the reference, verbatim, as a Python block
                    u"```python\n"_s + kReluSource + u"```"_s,
                    u"KernelBench level 1, problem 19 (`level1/19_ReLU.py`)"_s,
                    // the answer's form and KernelBench's convention
                    u"class ModelNew(nn.Module)"_s, u"same arguments as `Model.__init__`"_s,
                    u"same arguments as `Model.forward`"_s,
                    u"torch.utils.cpp_extension.load_inline"_s,
                    // what is not allowed
                    u"fp32"_s, u"bfloat16"_s, u"TF32"_s, u"at::cuda::getCurrentCUDAStream()"_s,
                    u"create no streams"_s, u"start no threads"_s, u"try/except"_s,
                    u"monkey-patching"_s, u"nothing cached between calls"_s,
                    u"inherit from the reference `Model`"_s, u"torch.compile, cuBLAS, cuDNN"_s,
                    u"0.02 absolute and 0.01 relative error"_s, u"one ```python block"_s};
    for (const QString &needle : expected)
        QVERIFY2(prompt.user.contains(needle),
                 qPrintable(needle + u" missing in:\n"_s + prompt.user));
    // Nothing of the C prompts, and every placeholder filled in (the reference's own "{{" kept).
    for (const QString &needle :
         {u"extern \"C\""_s, u"-fopenmp"_s, u"```cpp"_s, u"```cuda"_s, u"Entry point"_s})
        QVERIFY2(!prompt.user.contains(needle), qPrintable(needle + u" in:\n"_s + prompt.user));
    QCOMPARE(prompt.user.count(u"{{"_s), 1);
    QVERIFY(prompt.user.contains(u"{{not_a_placeholder}}"_s));
    QVERIFY2(prompt.system.contains(u"`class ModelNew(nn.Module)`"_s), qPrintable(prompt.system));
    QVERIFY(prompt.system.contains(u"load_inline"_s));
    QVERIFY2(!prompt.system.contains(u"extern"_s), qPrintable(prompt.system));
    QVERIFY(!prompt.system.contains(u"{{"_s));
    if (qEnvironmentVariableIsSet("KILN_PRINT_PROMPTS"))
        qInfo().noquote() << prompt.transcript();
}

void TestPromptBuilder::kernelBenchFeedbackNamesTorchCompile()
{
    EvaluationResult pass;
    pass.verdict = Verdict::Pass;
    pass.correct = true;
    pass.speedup = 1.8;
    pass.baselineMs = 0.9;
    pass.compiledBaselineMs = 0.6;
    pass.compiledSpeedup = 1.2;
    const QString text = FeedbackSummary::describe(pass);
    QVERIFY2(text.contains(u"speedup 1.8x"_s), qPrintable(text));
    QVERIFY2(text.contains(u"torch.compile baseline 0.6 ms"_s), qPrintable(text));
    QVERIFY2(text.contains(u"speedup vs torch.compile 1.2x"_s), qPrintable(text));
}

// A Triton run's task copy carries its language: the prompt asks for Triton kernels, with the
// language's own rules, and not for load_inline.
void TestPromptBuilder::kernelBenchAsksForTheRunsLanguage()
{
    Task task = kernelBenchRelu();
    task.candidateLanguage = u"triton"_s;
    GenerationRequest request;
    request.task = &task;
    request.backend = Backend::Torch;
    const Prompt prompt = PromptBuilder().build(request);
    for (const QString &needle :
         {u"@triton.jit"_s, u"kernel[grid](...)"_s, u"input_precision=\"tf32\""_s, u"triton.ops"_s,
          u"class ModelNew(nn.Module)"_s, u"0.02 absolute and 0.01 relative error"_s})
        QVERIFY2(prompt.user.contains(needle),
                 qPrintable(needle + u" missing in:\n"_s + prompt.user));
    QVERIFY2(!prompt.user.contains(u"load_inline"_s), qPrintable(prompt.user));
    QVERIFY2(prompt.system.contains(u"your own Triton kernels"_s), qPrintable(prompt.system));
    QVERIFY(!prompt.system.contains(u"load_inline"_s));
}

QTEST_GUILESS_MAIN(TestPromptBuilder)
#include "tst_promptbuilder.moc"
