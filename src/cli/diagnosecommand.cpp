#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/diagnosis/diagnosiscomparison.h"
#include "engine/diagnosis/rundiagnosis.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

namespace {

// Without --run: every search run's ratings in one table, then the mean per strategy (the
// seeds of a comparison), so runs and strategies compare at a glance.
int printWorkspace(RunStore &store, bool json)
{
    const QList<DiagnosisComparison::RunRow> runs = DiagnosisComparison::runs(store);
    const QList<DiagnosisComparison::StrategyRow> strategies =
        DiagnosisComparison::byStrategy(runs);
    const QStringList analyzers = DiagnosisComparison::analyzers();
    if (json) {
        QJsonArray runList, strategyList;
        for (const DiagnosisComparison::RunRow &run : runs) {
            QJsonObject ratings;
            for (const DiagnosisFinding &f : run.findings)
                ratings.insert(f.analyzer, f.rating);
            runList.append(QJsonObject{{QStringLiteral("run"), run.runId},
                                       {QStringLiteral("strategy"), run.strategy},
                                       {QStringLiteral("seed"), double(run.seed)},
                                       {QStringLiteral("tasks"), run.tasks},
                                       {QStringLiteral("ratings"), ratings}});
        }
        for (const DiagnosisComparison::StrategyRow &row : strategies) {
            QJsonObject means;
            for (qsizetype i = 0; i < analyzers.size(); ++i)
                means.insert(analyzers[i], row.meanRatings.value(i));
            strategyList.append(QJsonObject{{QStringLiteral("strategy"), row.strategy},
                                            {QStringLiteral("runs"), row.runs},
                                            {QStringLiteral("mean_ratings"), means}});
        }
        CommandLine::printJson(QJsonDocument(QJsonObject{
            {QStringLiteral("runs"), runList}, {QStringLiteral("strategies"), strategyList}}));
        return ExitOk;
    }
    // Columns: the analyzers' numbers, named in the legend under the table.
    std::printf("%-5s %-12s %-6s", "run", "strategy", "seed");
    for (qsizetype i = 0; i < analyzers.size(); ++i)
        std::printf(" %4lld", qint64(i + 1));
    std::printf("  tasks\n");
    for (const DiagnosisComparison::RunRow &run : runs) {
        std::printf("%-5lld %-12s %-6llu", run.runId, qPrintable(run.strategy.left(12)),
                    static_cast<unsigned long long>(run.seed));
        for (const DiagnosisFinding &f : run.findings)
            std::printf(" %4d", f.rating);
        std::printf("  %s\n", qPrintable(run.tasks));
    }
    std::printf("\nmean rating per strategy\n%-12s %-6s", "strategy", "runs");
    for (qsizetype i = 0; i < analyzers.size(); ++i)
        std::printf(" %4lld", qint64(i + 1));
    std::printf("\n");
    for (const DiagnosisComparison::StrategyRow &row : strategies) {
        std::printf("%-12s %-6d", qPrintable(row.strategy.left(12)), row.runs);
        for (double rating : row.meanRatings)
            std::printf(" %4.1f", rating);
        std::printf("\n");
    }
    const QStringList titles = DiagnosisComparison::titles();
    std::printf("\n");
    for (qsizetype i = 0; i < titles.size(); ++i)
        std::printf("%lld %s%s", qint64(i + 1), qPrintable(titles[i]),
                    i + 1 < titles.size() ? "; " : "\n");
    return ExitOk;
}

} // namespace

int runDiagnoseCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("diagnose"),
                    QStringLiteral("Say why a run stopped improving: stagnation, exploration "
                                   "collapse, a repeated misconception, evaluator noise, the "
                                   "ceiling, cost efficiency, reward-hacking pressure, depth "
                                   "versus width; each rated 1 (not seen) to 5 (plain), with its "
                                   "evidence as candidate ids and rounds (docs/diagnosis.md). "
                                   "Without --run, every search run's ratings side by side and "
                                   "their mean per strategy."));
    cli.addDbOption();
    cli.addRunOption(QStringLiteral("The run to diagnose (finished or live); without it, every "
                                    "search run of the workspace."));
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDb())
        return *missing;
    QString error;
    const auto store = RunStore::open(cli.db(), RunStore::Mode::ReadOnly, &error);
    if (!store)
        return cli.usageError(error);
    if (!cli.parser().isSet(QStringLiteral("run")))
        return printWorkspace(*store, cli.json());
    if (const auto missing = cli.requireRunId())
        return *missing;
    const qint64 runId = *cli.runId();
    if (!store->run(runId))
        return cli.usageError(QStringLiteral("no run %1 in %2").arg(runId).arg(cli.db()));
    const RunHistory history = RunHistory::load(*store, runId);
    const QList<DiagnosisFinding> findings = RunDiagnosis::diagnose(history);
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(RunDiagnosis::toJson(runId, history, findings)));
        return ExitOk;
    }
    std::printf("run %lld: %d candidates evaluated; ratings 1 (not seen) to 5 (plain)\n\n%s", runId,
                history.evaluatedCount(), qPrintable(RunDiagnosis::toText(findings)));
    return ExitOk;
}

} // namespace kiln
