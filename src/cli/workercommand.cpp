#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/cluster/spoolworker.h"

#include <QDir>
#include <atomic>
#include <csignal>
#include <cstdio>

namespace kiln {

namespace {

std::atomic<bool> g_stop{false};

// scancel sends SIGTERM: the sandboxes are stopped and the item is left for another worker.
void handleTerminate(int)
{
    g_stop = true;
}

} // namespace

int runWorkerCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("worker"),
                    QStringLiteral("Evaluate the work items of a spool session (the node side of "
                                   "--executor slurm; sbatch starts it)."));
    QCommandLineParser &p = cli.parser();
    p.addOption({QStringLiteral("spool"), QStringLiteral("The spool session folder."),
                 QStringLiteral("DIR")});
    p.addOption({QStringLiteral("idle-exit"),
                 QStringLiteral("End after S seconds without work (default 60)."),
                 QStringLiteral("S"), QStringLiteral("60")});
    p.addOption({QStringLiteral("name"),
                 QStringLiteral("Name of this worker's claims (default: $SLURM_JOB_ID)."),
                 QStringLiteral("NAME")});
    if (const auto done = cli.parse(arguments))
        return *done;
    const QString spool = p.value(QStringLiteral("spool"));
    if (spool.isEmpty() || !QDir(spool).exists(QStringLiteral("incoming")))
        return cli.usageError(QStringLiteral("--spool DIR must name a spool session folder"));
    bool ok = false;
    const int idleExit = p.value(QStringLiteral("idle-exit")).toInt(&ok);
    if (!ok || idleExit < 0)
        return cli.usageError(QStringLiteral("--idle-exit must be 0 or more seconds"));
    const QString name = p.isSet(QStringLiteral("name")) ? p.value(QStringLiteral("name"))
                                                         : SpoolWorker::defaultName();
    std::signal(SIGTERM, handleTerminate);
    std::signal(SIGINT, handleTerminate);
    SpoolWorker worker(SpoolDirectory(spool), name, idleExit);
    QString error;
    const int judged = worker.run(g_stop, &error);
    if (judged < 0)
        return cli.internalError(error);
    std::fprintf(stderr, "kiln worker %s: %d item(s) judged\n", qPrintable(name), judged);
    return ExitOk;
}

} // namespace kiln
