#include "promptbuilder.h"

#include "feedbacksummary.h"
#include "languages/kernellanguages.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>

namespace kiln {

namespace {

QString readText(const QString &path, bool *ok)
{
    QFile file(path);
    *ok = file.open(QIODevice::ReadOnly);
    return *ok ? QString::fromUtf8(file.readAll()) : QString();
}

// KernelBench problems are answered with a Python module whatever backend the request names.
Backend promptBackend(const GenerationRequest &request)
{
    return request.task && request.task->isKernelBench() ? Backend::Torch : request.backend;
}

QString fenceLanguage(Backend backend)
{
    switch (backend) {
    case Backend::Cuda:
        return QStringLiteral("cuda");
    case Backend::Torch:
        return QStringLiteral("python");
    case Backend::Cpu:
        break;
    }
    return QStringLiteral("cpp");
}

QString backendLabel(Backend backend)
{
    switch (backend) {
    case Backend::Cuda:
        return QStringLiteral("CUDA");
    case Backend::Torch:
        return QStringLiteral("PyTorch with custom CUDA kernels (KernelBench)");
    case Backend::Cpu:
        break;
    }
    return QStringLiteral("CPU (C++17)");
}

QString rulesTemplate(Backend backend)
{
    switch (backend) {
    case Backend::Cuda:
        return QStringLiteral("backend_cuda");
    case Backend::Torch:
        return QStringLiteral("backend_pytorch");
    case Backend::Cpu:
        break;
    }
    return QStringLiteral("backend_cpu");
}

QString sourceBlock(const QString &source, Backend backend)
{
    QString body = source;
    if (!body.endsWith(QLatin1Char('\n')))
        body += QLatin1Char('\n');
    return QStringLiteral("```") + fenceLanguage(backend) + QLatin1Char('\n') + body +
           QStringLiteral("```");
}

// What the answer must be, for the system message.
QString deliverable(Backend backend, const KernelLanguage *language)
{
    if (backend == Backend::Torch)
        return QStringLiteral(
                   "The source file is one Python module that defines `class ModelNew(nn.Module)` "
                   "with the constructor and `forward` signature of the reference `Model`, "
                   "computing the same outputs with your own %1. Never change that interface.")
            .arg(language && language->id() != QLatin1String("cuda")
                     ? QStringLiteral("%1 kernels").arg(language->displayName())
                     : QStringLiteral("CUDA kernels compiled through "
                                      "`torch.utils.cpp_extension.load_inline`"));
    return QStringLiteral("The source file must compile on its own and define the entry function "
                          "with the exact signature requested, declared `extern \"C\"`. Never "
                          "change the signature, and never read or write outside the given "
                          "buffers.");
}

// The interface section of the user message: the C entry to implement, or for KernelBench the
// reference program (verbatim) that ModelNew replaces.
QString interfaceSection(const Task &task, Backend backend, const QString &label)
{
    if (backend != Backend::Torch)
        return QStringLiteral("## Entry point\n\nImplement this function (backend: %1):\n\n```\n"
                              "extern \"C\" %2\n```")
            .arg(label, task.signature(backend));
    QString origin = QStringLiteral("The PyTorch program to make faster");
    if (task.kernelBench) {
        origin = QStringLiteral("KernelBench level %1, problem %2")
                     .arg(task.kernelBench->level)
                     .arg(task.kernelBench->number);
        if (!task.kernelBench->file.isEmpty())
            origin += QStringLiteral(" (`%1`)").arg(task.kernelBench->file);
        origin += QStringLiteral(": the PyTorch program to make faster");
    }
    return QStringLiteral("## Reference program\n\n%1, verbatim:\n\n%2\n\nWrite `class "
                          "ModelNew(nn.Module)`, a drop-in replacement for `Model`: it is built "
                          "as `ModelNew(*get_init_inputs())`, called with `*get_inputs()` (moved "
                          "to the GPU), and must return what `Model` returns.")
        .arg(origin, sourceBlock(task.referenceSource.value(Backend::Torch), Backend::Torch));
}

QString toleranceText(const Task &task)
{
    const Tolerance t = task.tolerance(QStringLiteral("f32"));
    const double abs = t.abs > 0 ? t.abs : 1e-2; // KernelBench's own default
    const double rel = t.rel > 0 ? t.rel : 1e-2;
    return QStringLiteral("%1 absolute and %2 relative error")
        .arg(QString::number(abs, 'g', 3), QString::number(rel, 'g', 3));
}

// What the model should aim for next: repair a broken parent, speed up a working one, or (mutate)
// try something different. Kept out of the templates' fixed text so one refine template serves all.
QString goalFor(const GenerationRequest &request)
{
    switch (request.operation) {
    case Operation::Mutate:
        return QStringLiteral("Try a substantially different optimisation strategy from the "
                              "kernel above (another parallel decomposition, memory layout or "
                              "tiling scheme) while keeping the results correct.");
    case Operation::Crossover:
        return QStringLiteral("Combine the strengths of both kernels into one that is correct "
                              "and faster than either.");
    case Operation::Sample:
    case Operation::Manual:
        return QStringLiteral("Write a correct kernel that is as fast as you can make it.");
    case Operation::Refine:
        break;
    }
    if (!request.parentEvaluations.isEmpty()) {
        const EvaluationResult &e = request.parentEvaluations.first();
        if (e.verdict == Verdict::Pass)
            return QStringLiteral("The kernel is correct. Make it faster while keeping it "
                                  "correct.");
        if (e.verdict == Verdict::Flagged)
            return QStringLiteral("The kernel was flagged by the anti-cheat checks. Remove the "
                                  "flagged behaviour and solve the task honestly.");
    }
    return QStringLiteral("Fix the problems reported above, then make the kernel fast.");
}

} // namespace

QString Prompt::transcript() const
{
    QString text;
    if (!system.isEmpty())
        text += QStringLiteral("### System\n\n") + system + QStringLiteral("\n\n");
    text += QStringLiteral("### User\n\n") + user;
    return text;
}

PromptBuilder::PromptBuilder(const QString &templateDir)
{
    for (const QString &name : templateNames()) {
        bool ok = false;
        QString text = readText(QStringLiteral(":/kiln/prompts/%1.md").arg(name), &ok);
        if (!templateDir.isEmpty()) {
            bool userOk = false;
            const QString user =
                readText(QDir(templateDir).filePath(name + QStringLiteral(".md")), &userOk);
            if (userOk) {
                text = user;
                m_overridden << name;
            }
        }
        m_templates.insert(name, text);
    }
}

QStringList PromptBuilder::templateNames()
{
    return {QStringLiteral("system"),
            QStringLiteral("first"),
            QStringLiteral("refine"),
            QStringLiteral("crossover"),
            QStringLiteral("backend_cpu"),
            QStringLiteral("backend_cuda"),
            QStringLiteral("backend_pytorch"),
            QStringLiteral("backend_pytorch_triton"),
            QStringLiteral("backend_pytorch_cute"),
            QStringLiteral("backend_pytorch_tilelang"),
            QStringLiteral("agent_profiler"),
            QStringLiteral("agent_planner"),
            QStringLiteral("agent_coder"),
            QStringLiteral("agent_tester")};
}

QString PromptBuilder::defaultTemplateDir()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation))
        .filePath(QStringLiteral("prompts"));
}

QString PromptBuilder::templateText(const QString &name) const
{
    return m_templates.value(name);
}

QString PromptBuilder::render(const QString &text, const QMap<QString, QString> &values)
{
    static const QRegularExpression placeholder(
        QStringLiteral("\\{\\{\\s*([A-Za-z0-9_]+)\\s*\\}\\}"));
    QString out;
    out.reserve(text.size());
    qsizetype last = 0;
    auto it = placeholder.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(text).mid(last, m.capturedStart() - last);
        const QString key = m.captured(1);
        if (values.contains(key))
            out += values.value(key);
        else
            out += m.captured(0);
        last = m.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out;
}

QMap<QString, QString> PromptBuilder::values(const GenerationRequest &request) const
{
    QMap<QString, QString> v;
    const Backend backend = promptBackend(request);
    // A KernelBench run asks for its kernel language (the run's copy of the task carries it).
    const KernelLanguage *language = backend == Backend::Torch && request.task
                                         ? KernelLanguages::find(request.task->candidateLanguage)
                                         : nullptr;
    if (backend == Backend::Torch && !language)
        language = &KernelLanguages::defaultLanguage();
    v.insert(QStringLiteral("backend"),
             language ? QStringLiteral("PyTorch with custom %1 kernels (KernelBench)")
                            .arg(language->displayName())
                      : backendLabel(backend));
    v.insert(QStringLiteral("deliverable"), deliverable(backend, language));
    v.insert(QStringLiteral("operation"), operationName(request.operation));
    v.insert(QStringLiteral("generation"), QString::number(request.generation));
    v.insert(QStringLiteral("reasoning_budget"),
             request.reasoningLength > 0 ? QString::number(request.reasoningLength) : QString());
    if (request.task)
        insertTaskValues(*request.task, backend, &v);
    v.insert(QStringLiteral("goal"), goalFor(request));
    for (int i = 0; i < 2; ++i) {
        const QString prefix = i == 0 ? QString() : QStringLiteral("second_");
        const bool hasParent = request.parents.size() > i;
        v.insert(prefix + QStringLiteral("parent_source"),
                 hasParent ? sourceBlock(request.parents.at(i).source, backend) : QString());
        QString feedback;
        if (request.parentEvaluations.size() > i)
            feedback = FeedbackSummary::describe(request.parentEvaluations.at(i));
        else if (hasParent)
            feedback = QStringLiteral("(not evaluated)");
        v.insert(prefix + QStringLiteral("feedback"), feedback);
    }
    v.insert(QStringLiteral("memory"), memorySection(request.memory));
    for (const QString &key : {QStringLiteral("trajectory"), QStringLiteral("profile"),
                               QStringLiteral("diagnosis"), QStringLiteral("plan")})
        v.insert(key, request.roleContext.value(key));
    const auto candidate = request.roleContext.constFind(QStringLiteral("candidate_source"));
    v.insert(QStringLiteral("candidate_source"), candidate == request.roleContext.cend()
                                                     ? QString()
                                                     : sourceBlock(*candidate, backend));
    if (request.task)
        insertShapeValues(*request.task, &v);
    // Backend rules are a template of their own so a user can edit them; they may use every
    // placeholder above.
    v.insert(
        QStringLiteral("backend_rules"),
        render(m_templates.value(language ? language->promptTemplate() : rulesTemplate(backend)), v)
            .trimmed());
    return v;
}

void PromptBuilder::insertTaskValues(const Task &task, Backend backend,
                                     QMap<QString, QString> *values)
{
    QMap<QString, QString> &v = *values;
    v.insert(QStringLiteral("task_name"), task.name);
    v.insert(QStringLiteral("task_title"), task.title);
    v.insert(QStringLiteral("task_description"), task.description.trimmed());
    v.insert(QStringLiteral("entry"), task.entry.isEmpty() ? task.name : task.entry);
    v.insert(QStringLiteral("signature"), task.signature(backend));
    v.insert(QStringLiteral("kernel_signature"), task.kernelSignature());
    v.insert(QStringLiteral("interface"),
             interfaceSection(task, backend, v.value(QStringLiteral("backend"))));
    v.insert(QStringLiteral("forbidden_libraries"),
             task.forbiddenLibraries.isEmpty()
                 ? QStringLiteral("none")
                 : task.forbiddenLibraries.join(QStringLiteral(", ")));
    const QStringList allowed = task.allowedLibraries.value(backend);
    v.insert(QStringLiteral("allowed_libraries"),
             allowed.isEmpty() ? QStringLiteral("none") : allowed.join(QStringLiteral(", ")));
    if (backend != Backend::Torch)
        return;
    v.insert(QStringLiteral("reference_source"),
             sourceBlock(task.referenceSource.value(Backend::Torch), Backend::Torch));
    v.insert(QStringLiteral("tolerance"), toleranceText(task));
    if (task.kernelBench) {
        v.insert(QStringLiteral("kernelbench_level"), QString::number(task.kernelBench->level));
        v.insert(QStringLiteral("kernelbench_problem"), QString::number(task.kernelBench->number));
        v.insert(QStringLiteral("kernelbench_file"), task.kernelBench->file);
    }
}

QString PromptBuilder::memorySection(const QList<MemoryEntry> &memory)
{
    if (memory.isEmpty())
        return {};
    QString text = QStringLiteral(
        "## What worked before (optimisation memory)\n\nLessons recorded when a kernel ran "
        "faster than its parent, most relevant first. Use them where they apply here.\n\n");
    int n = 0;
    for (const MemoryEntry &e : memory) {
        text +=
            QStringLiteral("%1. %2 (%3, %4): %5 — %6x -> %7x, %8x faster\n")
                .arg(++n)
                .arg(e.task, e.backend, e.shape.isEmpty() ? QStringLiteral("any shape") : e.shape,
                     e.idea, QString::number(e.speedupBefore, 'f', 2),
                     QString::number(e.speedupAfter, 'f', 2), QString::number(e.gain(), 'f', 2));
        if (!e.diff.isEmpty())
            text += QStringLiteral("```diff\n") + e.diff + QStringLiteral("\n```\n");
    }
    return text + QLatin1Char('\n');
}

void PromptBuilder::insertShapeValues(const Task &task, QMap<QString, QString> *values)
{
    QStringList checked;
    for (const ShapeConfig &shape : task.correctnessShapes)
        checked << task.shapeLabel(shape);
    const QMap<QString, qint64> largest = task.largestCheckedSizes();
    QStringList limits;
    QStringList example;
    for (const QString &name : task.sizes) {
        limits << QStringLiteral("%1=%2").arg(name).arg(largest.value(name));
        example << QStringLiteral("\"%1\": 1").arg(name);
    }
    values->insert(QStringLiteral("size_names"), task.sizes.join(QStringLiteral(", ")));
    values->insert(QStringLiteral("checked_shapes"), checked.join(QStringLiteral("; ")));
    values->insert(QStringLiteral("largest_sizes"), limits.join(QStringLiteral(", ")));
    values->insert(QStringLiteral("shape_example"),
                   QLatin1Char('{') + example.join(QStringLiteral(", ")) + QLatin1Char('}'));
}

Prompt PromptBuilder::build(const GenerationRequest &request) const
{
    const QMap<QString, QString> v = values(request);
    QString userTemplate;
    switch (request.operation) {
    case Operation::Crossover:
        userTemplate =
            request.parents.size() >= 2 ? QStringLiteral("crossover") : QStringLiteral("refine");
        break;
    case Operation::Refine:
    case Operation::Mutate:
    case Operation::Manual:
        userTemplate =
            request.parents.isEmpty() ? QStringLiteral("first") : QStringLiteral("refine");
        break;
    case Operation::Sample:
        userTemplate = QStringLiteral("first");
        break;
    }
    if (!request.role.isEmpty())
        userTemplate = QStringLiteral("agent_") + request.role;
    Prompt prompt;
    prompt.system = render(m_templates.value(QStringLiteral("system")), v).trimmed();
    prompt.user = render(m_templates.value(userTemplate), v).trimmed();
    return prompt;
}

} // namespace kiln
