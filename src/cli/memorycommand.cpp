#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/memory/memorylesson.h"
#include "engine/memory/memoryranker.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

namespace {

const QStringList kActions{QStringLiteral("list"),  QStringLiteral("show"),
                           QStringLiteral("edit"),  QStringLiteral("delete"),
                           QStringLiteral("clear"), QStringLiteral("rank")};

void printEntries(const QList<MemoryEntry> &entries, bool json)
{
    if (json) {
        QJsonArray array;
        for (const MemoryEntry &e : entries)
            array.append(e.toJson());
        CommandLine::printJson(QJsonDocument(QJsonObject{{QStringLiteral("entries"), array}}));
        return;
    }
    if (entries.isEmpty())
        std::printf("(the memory is empty)\n");
    for (const MemoryEntry &e : entries)
        std::printf("#%-5lld %-14s %-5s %5.2fx -> %5.2fx (%.2fx)%s  %s\n", qint64(e.id),
                    qPrintable(e.task), qPrintable(e.backend), e.speedupBefore, e.speedupAfter,
                    e.gain(), e.edited ? " edited" : "", qPrintable(e.idea));
}

int showEntry(CommandLine &cli, RunStore &store, qint64 id)
{
    const std::optional<MemoryEntry> e = store.memoryEntry(id);
    if (!e)
        return cli.usageError(QStringLiteral("no memory entry %1 in %2").arg(id).arg(store.path()));
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(e->toJson()));
        return ExitOk;
    }
    std::printf("entry %lld: %s on %s (%s)\nidea: %s%s\nspeedup: %.3fx -> %.3fx (%.2fx faster)\n",
                qint64(e->id), qPrintable(e->task), qPrintable(e->backend), qPrintable(e->shape),
                qPrintable(e->idea), e->edited ? " (edited)" : "", e->speedupBefore,
                e->speedupAfter, e->gain());
    if (e->runId)
        std::printf("from run %lld: candidate #%lld -> #%lld\n", qint64(*e->runId),
                    qint64(e->parentId.value_or(0)), qint64(e->childId.value_or(0)));
    std::printf("\n%s\n", qPrintable(e->diff));
    return ExitOk;
}

int rankEntries(CommandLine &cli, RunStore &store)
{
    const QString taskName = cli.parser().value(QStringLiteral("task"));
    const QString backendText = cli.parser().value(QStringLiteral("backend"));
    const std::optional<Backend> backend = backendFromName(backendText);
    if (taskName.isEmpty() || !backend)
        return cli.usageError(QStringLiteral("rank needs --task NAME and --backend cpu|cuda"));
    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    const Task *task = library.task(taskName);
    if (!task)
        return cli.usageError(QStringLiteral("unknown task '%1'").arg(taskName));
    bool ok = false;
    const int count = cli.parser().value(QStringLiteral("count")).toInt(&ok);
    if (!ok || count < 1)
        return cli.usageError(QStringLiteral("--count must be a positive number"));
    printEntries(MemoryRanker::rank(store.memoryEntries(), task->name, backendName(*backend),
                                    MemoryLesson::timingShape(*task, *backend), count),
                 cli.json());
    return ExitOk;
}

int changeEntries(CommandLine &cli, RunStore &store, const QString &action,
                  const std::optional<qint64> &id)
{
    if (action == QLatin1String("clear")) {
        const QString task = cli.parser().value(QStringLiteral("task"));
        const qint64 count = qint64(store.memoryEntries(task).size());
        if (!cli.parser().isSet(QStringLiteral("yes")))
            return cli.usageError(
                QStringLiteral("clear would remove %1 entries; add --yes").arg(count));
        const qint64 removed = store.clearMemory(task);
        if (removed < 0)
            return cli.internalError(store.lastError());
        std::printf("removed %lld entries\n", removed);
        return ExitOk;
    }
    if (!id)
        return cli.usageError(QStringLiteral("%1 needs an entry id").arg(action));
    if (action == QLatin1String("edit")) {
        const QString idea = cli.parser().value(QStringLiteral("idea"));
        if (idea.trimmed().isEmpty())
            return cli.usageError(QStringLiteral("edit needs --idea TEXT"));
        if (!store.updateMemoryIdea(*id, idea))
            return cli.usageError(store.lastError());
        return ExitOk;
    }
    if (!store.deleteMemoryEntry(*id))
        return cli.usageError(store.lastError());
    return ExitOk;
}

} // namespace

int runMemoryCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("memory"),
                    QStringLiteral("Inspect, edit and clear the workspace's optimisation memory: "
                                   "list, show ID, edit ID --idea TEXT, delete ID, clear --yes, "
                                   "rank --task T --backend B."));
    cli.addDbOption();
    cli.addJsonOption();
    cli.addTasksDirOption();
    cli.parser().addPositionalArgument(QStringLiteral("action"), kActions.join(QLatin1Char('|')));
    cli.parser().addPositionalArgument(QStringLiteral("id"), QStringLiteral("Entry id."));
    cli.parser().addOption({QStringLiteral("task"), QStringLiteral("Only this task's entries."),
                            QStringLiteral("NAME")});
    cli.parser().addOption({QStringLiteral("backend"), QStringLiteral("rank: the backend."),
                            QStringLiteral("BACKEND")});
    cli.parser().addOption({QStringLiteral("count"), QStringLiteral("rank: entries to show."),
                            QStringLiteral("N"), QStringLiteral("4")});
    cli.parser().addOption(
        {QStringLiteral("idea"), QStringLiteral("edit: the new idea."), QStringLiteral("TEXT")});
    cli.parser().addOption({QStringLiteral("yes"), QStringLiteral("clear: really remove.")});
    if (const auto done = cli.parse(arguments))
        return *done;
    const QStringList words = cli.parser().positionalArguments();
    const QString action = words.value(0, QStringLiteral("list"));
    if (!kActions.contains(action))
        return cli.usageError(QStringLiteral("unknown action '%1' (%2)")
                                  .arg(action, kActions.join(QStringLiteral(", "))));
    if (const auto missing = cli.requireDb())
        return *missing;
    std::optional<qint64> id;
    if (words.size() > 1) {
        bool ok = false;
        id = words[1].toLongLong(&ok);
        if (!ok)
            return cli.usageError(QStringLiteral("'%1' is not an entry id").arg(words[1]));
    }
    const bool writes = action == QLatin1String("edit") || action == QLatin1String("delete") ||
                        action == QLatin1String("clear");
    QString error;
    const auto store = RunStore::open(
        cli.db(), writes ? RunStore::Mode::ReadWrite : RunStore::Mode::ReadOnly, &error);
    if (!store)
        return cli.usageError(error);
    if (action == QLatin1String("list")) {
        printEntries(store->memoryEntries(cli.parser().value(QStringLiteral("task"))), cli.json());
        return ExitOk;
    }
    if (action == QLatin1String("show"))
        return id ? showEntry(cli, *store, *id)
                  : cli.usageError(QStringLiteral("show needs an entry id"));
    if (action == QLatin1String("rank"))
        return rankEntries(cli, *store);
    return changeEntries(cli, *store, action, id);
}

} // namespace kiln
