#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/searchengine.h"
#include "policies/manualpolicy.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifier.h"

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
    const QString db = cli.db();
    if (db.isEmpty())
        return cli.usageError(QStringLiteral("--db FILE is required"));
    const std::optional<qint64> requestedRun = cli.runId();
    if (!requestedRun)
        return cli.usageError(QStringLiteral("--run ID is required"));
    const qint64 runId = *requestedRun;
    bool ok = false;
    if (cli.parser().positionalArguments().size() != 1)
        return cli.usageError(QStringLiteral("exactly one candidate FILE is required"));
    QFile file(cli.parser().positionalArguments().first());
    if (!file.open(QIODevice::ReadOnly))
        return cli.usageError(
            QStringLiteral("cannot read %1: %2").arg(file.fileName(), file.errorString()));
    const QString source = QString::fromUtf8(file.readAll());
    if (source.trimmed().isEmpty())
        return cli.usageError(QStringLiteral("%1 is empty").arg(file.fileName()));

    QString error;
    auto store = RunStore::open(db, RunStore::Mode::ReadWrite, &error);
    if (!store)
        return cli.usageError(error);
    const std::optional<RunRecord> run = store->run(runId);
    if (!run || run->tasks.isEmpty())
        return cli.usageError(QStringLiteral("no search run %1 in %2").arg(runId).arg(db));
    const QString note = cli.parser().value(QStringLiteral("note"));
    CandidateRecord candidate;
    if (cli.parser().isSet(QStringLiteral("parent"))) {
        const qint64 parentId = cli.parser().value(QStringLiteral("parent")).toLongLong(&ok);
        const std::optional<CandidateRecord> parent =
            ok ? store->candidate(parentId) : std::nullopt;
        if (!parent || parent->runId != runId)
            return cli.usageError(QStringLiteral("no candidate '%1' in run %2")
                                      .arg(cli.parser().value(QStringLiteral("parent")))
                                      .arg(runId));
        candidate = ManualPolicy::makeChild(*parent, source, note);
    } else {
        candidate = ManualPolicy::makeRoot(runId, run->tasks.first(), source, note);
    }
    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    const Task *task = library.task(candidate.task);
    const std::optional<Backend> backend = backendFromName(run->backend);
    if (!task || !backend)
        return cli.usageError(QStringLiteral("task '%1' of run %2 is not in the task library")
                                  .arg(candidate.task)
                                  .arg(runId));
    Verifier verifier;
    const QString setup = verifier.checkSetup();
    if (!setup.isEmpty())
        return cli.internalError(setup);
    if (store->addCandidate(candidate) == 0)
        return cli.internalError(store->lastError());
    const EvaluationResult result =
        verifier.evaluate(*task, *backend, source, SearchEngine::runSecretFor(run->seed));
    if (store->addEvaluation(candidate.id, result) == 0)
        return cli.internalError(store->lastError());
    QJsonObject document = result.toJson();
    document.insert(QStringLiteral("candidate_id"), double(candidate.id));
    document.insert(QStringLiteral("run_id"), double(runId));
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(document));
    } else {
        std::printf("candidate %lld: %s", candidate.id, qPrintable(verdictName(result.verdict)));
        if (result.speedup)
            std::printf(" at %.2fx", *result.speedup);
        std::printf("\n");
    }
    return ExitOk;
}

} // namespace kiln
