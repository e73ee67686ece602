#include "cli/commandline.h"
#include "cli/commands.h"
#include "cli/lintreport.h"
#include "tasks/tasklibrary.h"
#include "verifier/lint/problemlinter.h"

#include <QFileInfo>
#include <QJsonObject>
#include <cstdio>

namespace kiln {

namespace {

// The tasks to lint: those of each folder argument, the library's task of each name argument,
// or every task of the library when there are no arguments.
QList<Task> chosenTasks(const QStringList &arguments, const TaskLibrary &library, QString *error)
{
    if (arguments.isEmpty())
        return library.tasks();
    QList<Task> tasks;
    for (const QString &argument : arguments) {
        if (QFileInfo(argument).isDir()) {
            TaskLibrary folder;
            folder.loadDirectory(argument);
            for (const QString &problem : folder.errorStrings())
                std::fprintf(stderr, "kiln-cli lint-tasks: %s\n", qPrintable(problem));
            tasks += folder.tasks();
        } else if (const Task *task = library.task(argument)) {
            tasks << *task;
        } else {
            *error = QStringLiteral("no task or folder \"%1\" (kiln-cli tasks lists the tasks)")
                         .arg(argument);
            return {};
        }
    }
    return tasks;
}

} // namespace

int runLintTasksCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("lint-tasks"),
        QStringLiteral(
            "Lint tasks themselves (docs/tasks.md, \"Problem lint\"): outputs that never "
            "change, inputs that change nothing, outputs an all-zero or constant answer "
            "would meet, redundant ops. Kiln's own tasks run on the CPU backend, "
            "KernelBench problems need torch. Each result is kept, so a task is linted "
            "once; the verifier then applies the magnitude-aware tolerance it states."));
    cli.parser().addPositionalArgument(
        QStringLiteral("TASK|DIR"),
        QStringLiteral("Task names, or folders of task folders (such as the folder "
                       "import-kernelbench imported into). Default: every task of the library."),
        QStringLiteral("[TASK|DIR...]"));
    cli.parser().addOption(
        {QStringLiteral("force"), QStringLiteral("Lint again even where a result is kept.")});
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    QString error;
    const QList<Task> tasks = chosenTasks(cli.parser().positionalArguments(), library, &error);
    if (!error.isEmpty())
        return cli.usageError(error);

    ProblemLinter linter(VerifierOptions::defaults());
    LintReport report;
    const bool force = cli.parser().isSet(QStringLiteral("force"));
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const Task &task = tasks[i];
        std::fprintf(stderr, "kiln-cli lint-tasks: %s (%lld of %lld)\n", qPrintable(task.name),
                     static_cast<long long>(i + 1), static_cast<long long>(tasks.size()));
        const ProblemLint lint = linter.lint(task, force);
        report.add(task.name, lint);
        if (!cli.json())
            for (const QString &line : LintReport::taskLines(task.name, lint))
                std::printf("%s\n", qPrintable(line));
        std::fflush(stdout);
    }
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(report.toJson()));
        return ExitOk;
    }
    for (const QString &line : report.notLintedLines())
        std::printf("%s\n", qPrintable(line));
    std::printf("%s\n", qPrintable(report.summary()));
    return ExitOk;
}

} // namespace kiln
