#include "promptbuilder.h"

#include "feedbacksummary.h"

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

QString sourceBlock(const QString &source, Backend backend)
{
    const QString language =
        backend == Backend::Cuda ? QStringLiteral("cuda") : QStringLiteral("cpp");
    QString body = source;
    if (!body.endsWith(QLatin1Char('\n')))
        body += QLatin1Char('\n');
    return QStringLiteral("```") + language + QLatin1Char('\n') + body + QStringLiteral("```");
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
    return {QStringLiteral("system"),      QStringLiteral("first"),
            QStringLiteral("refine"),      QStringLiteral("crossover"),
            QStringLiteral("backend_cpu"), QStringLiteral("backend_cuda")};
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
    const Backend backend = request.backend;
    v.insert(QStringLiteral("backend"),
             backend == Backend::Cuda ? QStringLiteral("CUDA") : QStringLiteral("CPU (C++17)"));
    v.insert(QStringLiteral("operation"), operationName(request.operation));
    v.insert(QStringLiteral("generation"), QString::number(request.generation));
    v.insert(QStringLiteral("reasoning_budget"),
             request.reasoningLength > 0 ? QString::number(request.reasoningLength) : QString());
    if (const Task *task = request.task) {
        v.insert(QStringLiteral("task_name"), task->name);
        v.insert(QStringLiteral("task_title"), task->title);
        v.insert(QStringLiteral("task_description"), task->description.trimmed());
        v.insert(QStringLiteral("entry"), task->entry.isEmpty() ? task->name : task->entry);
        v.insert(QStringLiteral("signature"), task->signature(backend));
        v.insert(QStringLiteral("forbidden_libraries"),
                 task->forbiddenLibraries.isEmpty()
                     ? QStringLiteral("none")
                     : task->forbiddenLibraries.join(QStringLiteral(", ")));
        const QStringList allowed = task->allowedLibraries.value(backend);
        v.insert(QStringLiteral("allowed_libraries"),
                 allowed.isEmpty() ? QStringLiteral("none") : allowed.join(QStringLiteral(", ")));
    }
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
    // Backend rules are a template of their own so a user can edit them; they may use every
    // placeholder above.
    const QString rulesName =
        backend == Backend::Cuda ? QStringLiteral("backend_cuda") : QStringLiteral("backend_cpu");
    v.insert(QStringLiteral("backend_rules"), render(m_templates.value(rulesName), v).trimmed());
    return v;
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
    Prompt prompt;
    prompt.system = render(m_templates.value(QStringLiteral("system")), v).trimmed();
    prompt.user = render(m_templates.value(userTemplate), v).trimmed();
    return prompt;
}

} // namespace kiln
