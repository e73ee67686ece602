#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/rejudge.h"
#include "engine/reports/runreport.h"
#include "engine/runconfig.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"

#include <cstdio>

namespace kiln {

namespace {

QString bestText(const QJsonObject &run)
{
    const QJsonValue best =
        run.value(QStringLiteral("best")).toObject().value(QStringLiteral("speedup"));
    return best.isDouble() ? QString::number(best.toDouble(), 'f', 2) + QLatin1Char('x')
                           : QStringLiteral("none");
}

} // namespace

// The leaky-verifier lesson's second half: the same candidates, judged by another verifier, as
// a new run beside the original.
int runRejudgeCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("rejudge"),
                    QStringLiteral("Verify a run's candidates again (strictly, by default) and "
                                   "store them as a new run beside the original."));
    cli.addDbOption();
    cli.addRunOption(QStringLiteral("The run to judge again."));
    cli.parser().addOption({QStringLiteral("verifier"),
                            QStringLiteral("strict (default) or lenient."), QStringLiteral("MODE"),
                            QStringLiteral("strict")});
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDbAndRunId())
        return *missing;
    const QString db = cli.db();
    const qint64 runId = *cli.runId();
    const QString verifier = cli.parser().value(QStringLiteral("verifier"));
    QString error;
    auto store = RunStore::open(db, RunStore::Mode::ReadWrite, &error);
    if (!store)
        return cli.usageError(error);
    const std::optional<RunRecord> original = store->run(runId);
    if (!original)
        return cli.usageError(QStringLiteral("no run %1 in %2").arg(runId).arg(db));
    if (const QString problem = RunConfig::verifierProblem(
            verifier, backendFromName(original->backend).value_or(Backend::Cpu));
        !problem.isEmpty())
        return cli.usageError(problem);
    VerifierOptions options = VerifierOptions::defaults();
    options.lenient = verifier == QLatin1String("lenient");
    VerifierEvaluator evaluator(options, VerifierEvaluator::machineSandboxes());
    const QString setup = evaluator.verifier().checkSetup();
    if (!setup.isEmpty())
        return cli.internalError(setup);
    const std::atomic<bool> never{false};
    const std::optional<Rejudge::Outcome> outcome = Rejudge::run(
        *store, TaskLibrary::standard(cli.tasksDirs()), evaluator, runId, verifier, never, &error);
    if (!outcome)
        return cli.usageError(error);
    const QJsonObject before = RunReport::runJson(*store, runId);
    const QJsonObject after = RunReport::runJson(*store, outcome->runId);
    if (cli.json()) {
        CommandLine::printJson(
            QJsonDocument(QJsonObject{{QStringLiteral("run_id"), double(outcome->runId)},
                                      {QStringLiteral("rejudged_from"), double(runId)},
                                      {QStringLiteral("verifier"), verifier},
                                      {QStringLiteral("evaluated"), outcome->evaluated},
                                      {QStringLiteral("changed"), outcome->changed},
                                      {QStringLiteral("original"), before},
                                      {QStringLiteral("run"), after}}));
        return ExitOk;
    }
    std::printf("run %lld: the %d candidates of run %lld judged by the %s verifier; %d verdicts "
                "changed; best %s (run %lld, %s verifier: %s)\n",
                outcome->runId, outcome->evaluated, runId, qPrintable(verifier), outcome->changed,
                qPrintable(bestText(after)), runId,
                qPrintable(before.value(QStringLiteral("verifier")).toString()),
                qPrintable(bestText(before)));
    return ExitOk;
}

} // namespace kiln
