#include "cli/commandline.h"
#include "cli/commands.h"
#include "tasks/tasklibrary.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

int runTasksCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("tasks"),
        QStringLiteral(
            "List the tasks: embedded core tasks, the installed folders, the per-user folder (%1) "
            "and any --tasks-dir folders.")
            .arg(TaskLibrary::userTasksDirectory()));
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;

    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    // Broken task folders never hide the good ones; they are reported on stderr.
    for (const QString &error : library.errorStrings())
        std::fprintf(stderr, "kiln-cli tasks: %s\n", qPrintable(error));

    if (cli.json()) {
        QJsonArray tasks;
        for (const Task &task : library.tasks())
            tasks.append(task.summaryJson());
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
    }
    return ExitOk;
}

} // namespace kiln
