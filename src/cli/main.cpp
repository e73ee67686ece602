#include "cli/commandline.h"
#include "cli/commands.h"

#include <QCoreApplication>
#include <cstdio>
#include <functional>

namespace {

struct Subcommand
{
    const char *name;
    const char *summary;
    std::function<int(const QStringList &)> run;
};

const QList<Subcommand> &subcommands()
{
    static const QList<Subcommand> list{
        {"tasks", "List the task library (embedded, per-user and --tasks-dir tasks).",
         kiln::runTasksCommand},
        {"eval", "Verify one candidate source file against a task.", kiln::runEvalCommand},
        {"run", "Search for fast kernels on a task or a suite.", kiln::runRunCommand},
        {"resume", "Continue a run whose process stopped or was killed.", kiln::runResumeCommand},
        {"compare", "Compare strategies at equal budget over several seeds.",
         kiln::runCompareCommand},
        {"report", "Summarise the runs of a workspace database.", kiln::runReportCommand},
        {"diagnose", "Say why a run stopped improving, with the evidence.",
         kiln::runDiagnoseCommand},
        {"export", "Export a run as JSON or CSV.", kiln::runExportCommand},
        {"submit", "Add a hand-written candidate to a run and verify it.", kiln::runSubmitCommand},
        {"rejudge", "Verify a run's candidates again, as a new run.", kiln::runRejudgeCommand},
        {"doctor", "Say what Kiln finds on this machine, with fixes.", kiln::runDoctorCommand},
        {"import-kernelbench", "Import a KernelBench checkout's problems as tasks.",
         kiln::runImportKernelBenchCommand},
        {"lint-tasks", "Lint tasks themselves: constant outputs, unused inputs, weak tolerances.",
         kiln::runLintTasksCommand},
        {"worker", "Evaluate a cluster spool's work items (started by sbatch).",
         kiln::runWorkerCommand},
        {"memory", "Inspect, edit or clear the workspace's optimisation memory.",
         kiln::runMemoryCommand},
        {"profile", "Profile a stored candidate with Nsight Compute, beside its reference.",
         kiln::runProfileCommand},
    };
    return list;
}

void printUsage(FILE *stream)
{
    std::fputs("Usage: kiln-cli <command> [options]\n       kiln-cli --version\n\nCommands:\n",
               stream);
    for (const Subcommand &command : subcommands())
        std::fprintf(stream, "  %-18s %s\n", command.name, command.summary);
    std::fputs("\nEvery command accepts --help.\n", stream);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kiln"));
    QCoreApplication::setOrganizationName(QStringLiteral("kiln"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KILN_VERSION));

    QStringList arguments = QCoreApplication::arguments().mid(1);
    if (arguments.isEmpty()) {
        printUsage(stderr);
        return kiln::ExitUsage;
    }
    const QString first = arguments.takeFirst();
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        std::printf("kiln-cli %s\n", KILN_VERSION);
        return kiln::ExitOk;
    }
    if (first == QLatin1String("--help") || first == QLatin1String("-h") ||
        first == QLatin1String("help")) {
        printUsage(stdout);
        return kiln::ExitOk;
    }
    for (const Subcommand &command : subcommands()) {
        if (first == QLatin1String(command.name))
            return command.run(arguments);
    }
    std::fprintf(stderr, "kiln-cli: unknown command '%s' (see kiln-cli --help)\n",
                 qPrintable(first));
    return kiln::ExitUsage;
}
