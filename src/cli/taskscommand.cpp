#include "cli/commandline.h"
#include "cli/commands.h"
#include "tasks/tasklibrary.h"
#include "verifier/lint/lintcache.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

int runTasksCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("tasks"),
        QStringLiteral(
            "List the tasks: embedded core tasks, the installed folders, the per-user folder (%1) "
            "and any --tasks-dir folders, each with what problem lint found (kiln-cli "
            "lint-tasks runs it).")
            .arg(TaskLibrary::userTasksDirectory()));
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;

    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    // Broken task folders never hide the good ones; they are reported on stderr.
    for (const QString &error : library.errorStrings())
        std::fprintf(stderr, "kiln-cli tasks: %s\n", qPrintable(error));

    // Problem lint as kept: listing never runs a reference.
    const LintCache lints = LintCache::forOptions(VerifierOptions::defaults());
    if (cli.json()) {
        QJsonArray tasks;
        for (const Task &task : library.tasks()) {
            QJsonObject entry = task.summaryJson();
            entry.insert(QStringLiteral("lint"), lints.stored(task).toJson());
            tasks.append(entry);
        }
        CommandLine::printJson(QJsonDocument(QJsonObject{{QStringLiteral("tasks"), tasks}}));
        return ExitOk;
    }
    for (const Task &task : library.tasks()) {
        QStringList backends;
        for (Backend b : task.backends())
            backends.append(backendName(b));
        std::printf("%-12s %-40s [%s]\n    %s\n", qPrintable(task.name), qPrintable(task.title),
                    qPrintable(backends.join(QLatin1Char(','))),
                    qPrintable(task.signature(Backend::Cpu)));
        for (const QString &line : lints.stored(task).lines())
            std::printf("    %s\n", qPrintable(line));
    }
    return ExitOk;
}

} // namespace kiln
