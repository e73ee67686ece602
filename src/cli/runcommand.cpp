#include "cli/commandline.h"
#include "cli/commands.h"
#include "cli/runoptions.h"
#include "cli/runsession.h"
#include "engine/reports/runreport.h"
#include "engine/runarguments.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

int runRunCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("run"),
        QStringLiteral("Search for fast kernels: generate, verify and select candidates "
                       "until the budget is spent."));
    addRunOptions(cli);
    cli.parser().addOption(RunArguments::strategyOption());
    if (const auto done = cli.parse(arguments))
        return *done;
    QString error;
    const std::optional<RunConfig> config =
        runConfigFromOptions(cli, cli.parser().value(QStringLiteral("strategy")), &error);
    if (!config)
        return cli.usageError(error);
    if (const QString shortfall = config->budgetShortfall(); !shortfall.isEmpty())
        std::fprintf(stderr, "kiln-cli run: warning: %s\n", qPrintable(shortfall));
    int status = ExitOk;
    auto store = openWorkspace(cli, cli.parser().value(QStringLiteral("db")), &status);
    if (!store)
        return status;
    TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    const int sandboxes =
        config->policyParameters
            .value(QStringLiteral("sandboxes"), VerifierEvaluator::machineSandboxes())
            .toInt();
    RunSession session(*store, std::move(library), sandboxes);
    bool usage = false;
    const qint64 runId = session.execute(*config, 0, true, &error, &usage);
    if (runId == 0)
        return usage ? cli.usageError(error) : cli.internalError(error);
    const QJsonObject result = RunReport::resultJson(*store, runId);
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(result));
    } else {
        const QJsonObject best = result.value(QStringLiteral("best")).toObject();
        std::printf("run %lld: %d candidates, stopped: %s\n", runId,
                    result.value(QStringLiteral("candidates")).toInt(),
                    qPrintable(session.stopReason()));
        std::printf("best: %s\n", qPrintable(RunReport::bestText(best)));
        if (const int duplicates = result.value(QStringLiteral("duplicates")).toInt())
            std::printf("duplicates: %d candidate(s) repeated an earlier source; their "
                        "judgement was reused\n",
                        duplicates);
        if (result.value(QStringLiteral("verifier")).toString() == QLatin1String("lenient"))
            std::printf("judged by the LENIENT verifier (naive harness): not the true speedup; "
                        "kiln-cli rejudge --db %s --run %lld judges it strictly\n",
                        qPrintable(store->path()), runId);
    }
    return ExitOk;
}

int runResumeCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("resume"),
                    QStringLiteral("Continue a run whose process stopped or was killed."));
    cli.addDbOption();
    cli.addRunOption();
    cli.parser().addOption({QStringLiteral("sandboxes"), QStringLiteral("Sandboxes in parallel."),
                            QStringLiteral("N")});
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDbAndRunId())
        return *missing;
    const QString db = cli.db();
    const qint64 runId = *cli.runId();
    int status = ExitOk;
    auto store = openWorkspace(cli, db, &status);
    if (!store)
        return status;
    const std::optional<RunRecord> run = store->run(runId);
    if (!run)
        return cli.usageError(QStringLiteral("no run %1 in %2").arg(runId).arg(db));
    QString error;
    if (run->status != RunRecord::Status::Finished) {
        const int sandboxes = cli.parser().isSet(QStringLiteral("sandboxes"))
                                  ? cli.parser().value(QStringLiteral("sandboxes")).toInt()
                                  : VerifierEvaluator::machineSandboxes();
        RunSession session(*store, TaskLibrary::standard(cli.tasksDirs()), std::max(1, sandboxes));
        bool usage = false;
        if (session.execute(RunConfig(), runId, true, &error, &usage) == 0)
            return usage ? cli.usageError(error) : cli.internalError(error);
    }
    const QJsonObject result = RunReport::resultJson(*store, runId);
    if (cli.json())
        CommandLine::printJson(QJsonDocument(result));
    else
        std::printf("run %lld: %d candidates, %s\n", runId,
                    result.value(QStringLiteral("candidates")).toInt(),
                    qPrintable(result.value(QStringLiteral("status")).toString()));
    return ExitOk;
}

} // namespace kiln
