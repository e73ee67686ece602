#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/reports/fastpreport.h"
#include "engine/reports/runreport.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QJsonArray>
#include <algorithm>
#include <cstdio>

namespace kiln {

namespace {

// "pytorch/triton" for a KernelBench run in another language than inline CUDA.
QString backendLabel(const QJsonObject &run)
{
    const QString backend = run.value(QStringLiteral("backend")).toString();
    const QString language = run.value(QStringLiteral("language")).toString();
    return backend == QLatin1String("pytorch") && !language.isEmpty() &&
                   language != QLatin1String("cuda")
               ? backend + QLatin1Char('/') + language
               : backend;
}

// "strict", "LENIENT (naive harness)", or "strict, rejudged run 3": a lenient run's figures are
// never shown without saying so.
QString verifierLabel(const QJsonObject &run)
{
    const QString verifier = run.value(QStringLiteral("verifier")).toString();
    QString label =
        verifier == QLatin1String("lenient") ? QStringLiteral("LENIENT (naive harness)") : verifier;
    if (run.value(QStringLiteral("rejudged_from")).isDouble())
        label += QStringLiteral(", rejudged run %1")
                     .arg(qint64(run.value(QStringLiteral("rejudged_from")).toDouble()));
    return label;
}

// "2.31x±0.04*" (* not confirmed), "-" when nothing passed: fits the table's column.
QString bestFigure(const QJsonObject &best)
{
    if (!best.value(QStringLiteral("speedup")).isDouble())
        return QStringLiteral("-");
    QString figure =
        QStringLiteral("%1x").arg(best.value(QStringLiteral("speedup")).toDouble(), 0, 'f', 2);
    if (const std::optional<SpeedupInterval> interval = RunReport::bestInterval(best))
        figure += QStringLiteral("±%1").arg(interval->plusMinus(), 0, 'f', 2);
    if (!best.value(QStringLiteral("confirmed")).toBool())
        figure += QLatin1Char('*');
    return figure;
}

// The text report's run table, from the runs' JSON documents.
void printRuns(const QJsonArray &runs)
{
    std::printf("%-5s %-16s %-10s %-8s %-7s %-10s %6s %15s %6s %5s %6s  %s\n", "run", "task",
                "strategy", "policy", "back", "status", "cands", "best", "pass", "dups", "evals",
                "verifier");
    for (const QJsonValue &value : runs) {
        const QJsonObject r = value.toObject();
        const QJsonObject best = r.value(QStringLiteral("best")).toObject();
        std::printf(
            "%-5lld %-16s %-10s %-8s %-7s %-10s %6d %15s %6d %5d %6lld  %s\n",
            qint64(r.value(QStringLiteral("id")).toDouble()),
            qPrintable(r.value(QStringLiteral("task")).toString().left(16)),
            qPrintable(r.value(QStringLiteral("strategy")).toString()),
            qPrintable(r.value(QStringLiteral("policy")).toString()), qPrintable(backendLabel(r)),
            qPrintable(r.value(QStringLiteral("status")).toString()),
            r.value(QStringLiteral("candidates")).toInt(), qPrintable(bestFigure(best)),
            r.value(QStringLiteral("verdicts")).toObject().value(QStringLiteral("pass")).toInt(),
            r.value(QStringLiteral("duplicates")).toInt(),
            qint64(r.value(QStringLiteral("budget_used"))
                       .toObject()
                       .value(QStringLiteral("evals"))
                       .toDouble()),
            qPrintable(verifierLabel(r)));
    }
}

// One value of the fast_p table: a share as a percentage of the problems.
QString share(double value)
{
    return QStringLiteral("%1%").arg(100.0 * value, 0, 'f', 0);
}

// The text report's fast_p section: one line per KernelBench level, against eager PyTorch and
// against torch.compile (whose fast_0, the share correct, is eager's), over every run of the
// database.
void printFastP(const FastPReport::Collected &collected)
{
    std::printf("\nfast_p by KernelBench level: the share of problems whose best passing candidate "
                "is more than p times faster\n(fast_0: the share correct), over %d run(s) of the "
                "whole database",
                collected.runs);
    if (collected.lenientRuns > 0)
        std::printf(", %d lenient run(s) left out", collected.lenientRuns);
    std::printf("\n%-22s   %-35s   %s\n", "", "against eager PyTorch", "against torch.compile");
    std::printf("%-5s %8s %7s   %8s %8s %8s %8s   %8s %8s %8s\n", "level", "problems", "correct",
                "fast_0", "fast_1", "fast_1.5", "fast_2", "fast_1", "fast_1.5", "fast_2");
    for (const FastPLevel &row : FastPMetrics::byLevel(collected.problems)) {
        QString line = QStringLiteral("%1 %2 %3  ")
                           .arg(row.level, -5)
                           .arg(row.problems, 8)
                           .arg(row.correct, 7);
        for (int i = 0; i < 4; ++i)
            line += QStringLiteral(" %1").arg(share(row.eager.value(i)), 8);
        line += QStringLiteral("  ");
        for (int i = 1; i < 4; ++i)
            line += QStringLiteral(" %1").arg(share(row.compiled.value(i)), 8);
        if (row.compiledMeasured < row.correct)
            line += QStringLiteral("   (%1 correct without a torch.compile timing)")
                        .arg(row.correct - row.compiledMeasured);
        std::printf("%s\n", qPrintable(line));
    }
}

} // namespace

int runReportCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("report"),
        QStringLiteral("Summarise the runs of a workspace database. When it holds runs on "
                       "KernelBench problems, also fast_p by KernelBench level (p = 0, 1, 1.5, 2, "
                       "against eager PyTorch and torch.compile), always over every run of the "
                       "database (--run does not narrow it): one problem per task, its best "
                       "passing candidate over all runs; lenient runs are left out."));
    cli.addDbOption();
    cli.addRunOption(QStringLiteral("Only this run (the run table; fast_p stays database-wide)."));
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDb())
        return *missing;
    const QString db = cli.db();
    QString error;
    const auto store = RunStore::open(db, RunStore::Mode::ReadOnly, &error);
    if (!store)
        return cli.usageError(error);

    QList<qint64> ids;
    if (cli.parser().isSet(QStringLiteral("run"))) {
        const std::optional<qint64> id = cli.runId();
        if (!id || !store->run(*id))
            return cli.usageError(QStringLiteral("no run '%1' in %2")
                                      .arg(cli.parser().value(QStringLiteral("run")), db));
        ids.append(*id);
    } else {
        for (const RunRecord &run : store->runs())
            ids.append(run.id);
    }
    QJsonArray runs;
    for (qint64 id : ids)
        runs.append(RunReport::runJson(*store, id));
    const TaskLibrary library = TaskLibrary::standard(cli.tasksDirs());
    const FastPReport::Collected fastP = FastPReport::collect(*store, &library);
    if (cli.json()) {
        QJsonObject document{{QStringLiteral("runs"), runs}};
        if (!fastP.isEmpty())
            document.insert(QStringLiteral("fast_p"), FastPReport::json(fastP));
        CommandLine::printJson(QJsonDocument(document));
        return ExitOk;
    }
    printRuns(runs);
    std::printf("best: the speedup ± the larger side of its 95 %% interval (a paired bootstrap "
                "of the timed calls); * not confirmed by a re-measurement. dups: candidates that "
                "repeated an earlier source (judgement reused).\n");
    if (!fastP.isEmpty())
        printFastP(fastP);
    return ExitOk;
}

} // namespace kiln
