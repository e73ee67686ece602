#include "cli/commandline.h"
#include "cli/commands.h"
#include "cli/runoptions.h"
#include "cli/runsession.h"
#include "engine/budget/budgetaxis.h"
#include "engine/reports/runreport.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kiln {

namespace {

// Best speedup reached by the time `spent` units of the axis were used, from a run's curve.
double bestAt(const QJsonArray &curve, const QString &axisKey, double spent)
{
    double best = 0.0;
    for (const QJsonValue &point : curve) {
        const QJsonObject p = point.toObject();
        if (p.value(axisKey).toDouble() > spent + 1e-9)
            break;
        best = p.value(QStringLiteral("best_speedup")).toDouble();
    }
    return best;
}

// How many budget fractions a strategy's mean curve is sampled at.
constexpr int kCurvePoints = 16;

// The key of the run curve's axis that measures `axis`.
QString curveAxisKey(BudgetAxis axis)
{
    return budgetAxisName(axis) == QLatin1String("device_seconds") ? QStringLiteral("seconds")
                                                                   : budgetAxisName(axis);
}

// A run's best speedup after each of kCurvePoints equal steps of the budget.
QList<double> sampledCurve(RunStore &store, qint64 runId, const QString &axisKey, double budget)
{
    const QJsonArray curve = RunReport::curve(store, runId);
    QList<double> sampled;
    for (int i = 1; i <= kCurvePoints; ++i)
        sampled.append(bestAt(curve, axisKey, budget * i / kCurvePoints));
    return sampled;
}

// Runs `config` as a new run of the workspace; 0 with *error and *usage when it could not.
qint64 runOneSeed(RunStore &store, const TaskLibrary &library, const RunConfig &config,
                  QString *error, bool *usage)
{
    std::fprintf(stderr, "compare: %s, seed %llu\n", qPrintable(config.strategy),
                 static_cast<unsigned long long>(config.seed));
    const int sandboxes =
        config.policyParameters
            .value(QStringLiteral("sandboxes"), VerifierEvaluator::machineSandboxes())
            .toInt();
    RunSession session(store, library, sandboxes);
    return session.execute(config, 0, true, error, usage);
}

// One strategy's result: its runs, the spread of their final best speedups and the mean curve.
QJsonObject strategySummary(const QString &strategy, const QJsonArray &runIds,
                            const QList<QList<double>> &curves, const QString &axisKey,
                            double budget)
{
    QList<double> bests;
    for (const QList<double> &curve : curves)
        bests.append(curve.constLast());
    double mean = 0.0;
    for (double b : bests)
        mean += b;
    mean /= bests.size();
    double var = 0.0;
    for (double b : bests)
        var += (b - mean) * (b - mean);
    const double stddev = bests.size() > 1 ? std::sqrt(var / (bests.size() - 1)) : 0.0;
    QJsonArray meanCurve;
    for (int i = 0; i < kCurvePoints; ++i) {
        double m = 0.0;
        for (const QList<double> &c : curves)
            m += c[i];
        meanCurve.append(QJsonObject{{axisKey, budget * (i + 1) / kCurvePoints},
                                     {QStringLiteral("best_speedup"), m / curves.size()}});
    }
    return QJsonObject{
        {QStringLiteral("strategy"), strategy},
        {QStringLiteral("runs"), runIds},
        {QStringLiteral("best_speedup"),
         QJsonObject{{QStringLiteral("mean"), mean},
                     {QStringLiteral("std"), stddev},
                     {QStringLiteral("min"), *std::min_element(bests.begin(), bests.end())},
                     {QStringLiteral("max"), *std::max_element(bests.begin(), bests.end())}}},
        {QStringLiteral("curve"), meanCurve}};
}

void printTable(const QJsonArray &results)
{
    std::printf("%-12s %10s %8s %8s %8s\n", "strategy", "mean best", "std", "min", "max");
    for (const QJsonValue &value : results) {
        const QJsonObject r = value.toObject();
        const QJsonObject b = r.value(QStringLiteral("best_speedup")).toObject();
        std::printf(
            "%-12s %9.2fx %8.2f %7.2fx %7.2fx\n",
            qPrintable(r.value(QStringLiteral("strategy")).toString()),
            b.value(QStringLiteral("mean")).toDouble(), b.value(QStringLiteral("std")).toDouble(),
            b.value(QStringLiteral("min")).toDouble(), b.value(QStringLiteral("max")).toDouble());
    }
}

} // namespace

int runCompareCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("compare"),
                    QStringLiteral("Run several strategies at equal budget over several seeds and "
                                   "compare their best speedup against compute spent."));
    addRunOptions(cli);
    cli.parser().addOption({QStringLiteral("strategies"), QStringLiteral("Strategies to compare."),
                            QStringLiteral("S1,S2,...")});
    cli.parser().addOption({QStringLiteral("seeds"), QStringLiteral("Seeds per strategy."),
                            QStringLiteral("K"), QStringLiteral("3")});
    if (const auto done = cli.parse(arguments))
        return *done;
    const QStringList strategies = cli.parser()
                                       .value(QStringLiteral("strategies"))
                                       .split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (strategies.isEmpty())
        return cli.usageError(QStringLiteral("--strategies S1,S2,... is required"));
    bool ok = false;
    const int seeds = cli.parser().value(QStringLiteral("seeds")).toInt(&ok);
    if (!ok || seeds < 1)
        return cli.usageError(QStringLiteral("--seeds must be a positive integer"));

    QList<RunConfig> configs;
    QString error;
    for (const QString &strategy : strategies) {
        const std::optional<RunConfig> config = runConfigFromOptions(cli, strategy, &error);
        if (!config)
            return cli.usageError(error);
        configs.append(*config);
    }
    int status = ExitOk;
    auto store = openWorkspace(cli, cli.parser().value(QStringLiteral("db")), &status);
    if (!store)
        return status;
    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());

    const QString axisKey = curveAxisKey(configs.first().budgetAxis);
    const double budget = configs.first().budget;
    QJsonArray results;
    for (const RunConfig &base : configs) {
        QJsonArray runIds;
        QList<QList<double>> curves;
        for (int s = 0; s < seeds; ++s) {
            RunConfig config = base;
            config.seed = base.seed + quint64(s);
            bool usage = false;
            const qint64 runId = runOneSeed(*store, library, config, &error, &usage);
            if (runId == 0)
                return usage ? cli.usageError(error) : cli.internalError(error);
            runIds.append(double(runId));
            curves.append(sampledCurve(*store, runId, axisKey, budget));
        }
        results.append(strategySummary(base.strategy, runIds, curves, axisKey, budget));
    }
    const QJsonObject document{
        {QStringLiteral("tasks"), QJsonArray::fromStringList(configs.first().tasks)},
        {QStringLiteral("budget"), budget},
        {QStringLiteral("budget_axis"), budgetAxisName(configs.first().budgetAxis)},
        {QStringLiteral("seeds"), seeds},
        {QStringLiteral("strategies"), results}};
    if (cli.json())
        CommandLine::printJson(QJsonDocument(document));
    else
        printTable(results);
    return ExitOk;
}

} // namespace kiln
