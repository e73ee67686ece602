#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/manualsubmission.h"
#include "engine/runconfig.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QFile>
#include <cstdio>

namespace kiln {

// "Can you beat the search?": a hand-written candidate joins a run's tree as a manual node,
// judged by the same verifier on the same inputs as the run's own candidates.
int runSubmitCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("submit"),
                    QStringLiteral("Add a hand-written candidate to a run (as a child of --parent, "
                                   "or as a new root) and verify it."));
    cli.addDbOption();
    cli.addRunOption();
    cli.parser().addOption(
        {QStringLiteral("parent"), QStringLiteral("Parent candidate id."), QStringLiteral("ID")});
    cli.parser().addOption({QStringLiteral("note"), QStringLiteral("A note kept with the node."),
                            QStringLiteral("TEXT")});
    cli.parser().addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Candidate source."));
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDbAndRunId())
        return *missing;
    const QString db = cli.db();
    const qint64 runId = *cli.runId();
    if (cli.parser().positionalArguments().size() != 1)
        return cli.usageError(QStringLiteral("exactly one candidate FILE is required"));
    QFile file(cli.parser().positionalArguments().first());
    if (!file.open(QIODevice::ReadOnly))
        return cli.usageError(
            QStringLiteral("cannot read %1: %2").arg(file.fileName(), file.errorString()));
    ManualSubmission::Request request;
    request.runId = runId;
    request.source = QString::fromUtf8(file.readAll());
    request.note = cli.parser().value(QStringLiteral("note"));
    if (request.source.trimmed().isEmpty())
        return cli.usageError(QStringLiteral("%1 is empty").arg(file.fileName()));
    if (cli.parser().isSet(QStringLiteral("parent"))) {
        bool ok = false;
        request.parent = cli.parser().value(QStringLiteral("parent")).toLongLong(&ok);
        if (!ok)
            return cli.usageError(QStringLiteral("--parent expects a candidate id"));
    }

    QString error;
    auto store = RunStore::open(db, RunStore::Mode::ReadWrite, &error);
    if (!store)
        return cli.usageError(error);
    // Judged as the run's own candidates were.
    VerifierOptions options = VerifierOptions::defaults();
    if (const std::optional<RunRecord> run = store->run(runId))
        options.lenient = RunConfig::lenientOf(run->config);
    VerifierEvaluator evaluator(options, 1);
    const QString setup = evaluator.verifier().checkSetup();
    if (!setup.isEmpty())
        return cli.internalError(setup);
    const std::atomic<bool> never{false};
    bool usage = false;
    const std::optional<ManualSubmission::Outcome> outcome = ManualSubmission::submit(
        *store, TaskLibrary::standard(cli.tasksDirs()), evaluator, request, never, &error, &usage);
    if (!outcome)
        return usage ? cli.usageError(error) : cli.internalError(error);
    QJsonObject document = outcome->result.toJson();
    document.insert(QStringLiteral("candidate_id"), double(outcome->candidate.id));
    document.insert(QStringLiteral("run_id"), double(runId));
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(document));
    } else {
        std::printf("candidate %lld: %s", outcome->candidate.id,
                    qPrintable(verdictName(outcome->result.verdict)));
        if (outcome->result.speedup)
            std::printf(" at %.2fx", *outcome->result.speedup);
        std::printf("\n");
    }
    return ExitOk;
}

} // namespace kiln
