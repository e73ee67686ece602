#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/runreport.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

namespace {

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

} // namespace

int runReportCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("report"),
                    QStringLiteral("Summarise the runs of a workspace database."));
    cli.addDbOption();
    cli.addRunOption(QStringLiteral("Only this run."));
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    const QString db = cli.db();
    if (db.isEmpty())
        return cli.usageError(QStringLiteral("--db FILE is required"));
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
    if (cli.json()) {
        CommandLine::printJson(QJsonDocument(QJsonObject{{QStringLiteral("runs"), runs}}));
        return ExitOk;
    }
    std::printf("%-5s %-16s %-10s %-8s %-5s %-10s %6s %8s %6s %6s  %s\n", "run", "task", "strategy",
                "policy", "back", "status", "cands", "best", "pass", "evals", "verifier");
    for (const QJsonValue &value : runs) {
        const QJsonObject r = value.toObject();
        const QJsonValue best =
            r.value(QStringLiteral("best")).toObject().value(QStringLiteral("speedup"));
        std::printf(
            "%-5lld %-16s %-10s %-8s %-5s %-10s %6d %7sx %6d %6lld  %s\n",
            qint64(r.value(QStringLiteral("id")).toDouble()),
            qPrintable(r.value(QStringLiteral("task")).toString().left(16)),
            qPrintable(r.value(QStringLiteral("strategy")).toString()),
            qPrintable(r.value(QStringLiteral("policy")).toString()),
            qPrintable(r.value(QStringLiteral("backend")).toString()),
            qPrintable(r.value(QStringLiteral("status")).toString()),
            r.value(QStringLiteral("candidates")).toInt(),
            best.isDouble() ? qPrintable(QString::number(best.toDouble(), 'f', 2)) : "-",
            r.value(QStringLiteral("verdicts")).toObject().value(QStringLiteral("pass")).toInt(),
            qint64(r.value(QStringLiteral("budget_used"))
                       .toObject()
                       .value(QStringLiteral("evals"))
                       .toDouble()),
            qPrintable(verifierLabel(r)));
    }
    return ExitOk;
}

} // namespace kiln
