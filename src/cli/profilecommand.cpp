#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/profile/profilesession.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QJsonArray>
#include <cstdio>

namespace kiln {

namespace {

QString number(const QJsonObject &object, const char *key)
{
    return QString::number(object.value(QString::fromLatin1(key)).toDouble(), 'g', 4);
}

void printRecord(const ProfileRecord &record)
{
    if (!record.ok) {
        std::printf("%s: no profile: %s\n", qPrintable(record.subject), qPrintable(record.reason));
        return;
    }
    std::printf("%s: %s ms a call (%s launches profiled); report %s\n", qPrintable(record.subject),
                qPrintable(number(record.metrics, "duration_ms")),
                qPrintable(number(record.metrics, "launches_profiled")),
                qPrintable(record.reportPath));
    if (record.metrics.contains(QStringLiteral("verifier_ms")))
        std::printf("  the verifier's median %s ms: %+.1f %% from ncu's\n",
                    qPrintable(number(record.metrics, "verifier_ms")),
                    record.metrics.value(QStringLiteral("difference_pct")).toDouble());
    for (const QJsonValue &value : record.metrics.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = value.toObject();
        QStringList stalls;
        for (const QJsonValue &stall : k.value(QStringLiteral("top_stalls")).toArray())
            stalls << stall.toObject().value(QStringLiteral("reason")).toString();
        std::printf(
            "  %s: %s ms, SM %s %%, memory %s %%, occupancy %s %%, DRAM %s B read %s B "
            "written, %s registers, %s B shared; stalls: %s\n",
            qPrintable(k.value(QStringLiteral("kernel")).toString()),
            qPrintable(number(k, "duration_ms")), qPrintable(number(k, "sm_throughput_pct")),
            qPrintable(number(k, "memory_throughput_pct")),
            qPrintable(number(k, "achieved_occupancy_pct")),
            qPrintable(number(k, "dram_read_bytes")), qPrintable(number(k, "dram_write_bytes")),
            qPrintable(number(k, "registers_per_thread")),
            qPrintable(number(k, "shared_memory_per_block_bytes")),
            qPrintable(stalls.isEmpty() ? QStringLiteral("none")
                                        : stalls.join(QStringLiteral(", "))));
    }
}

} // namespace

// A stored candidate once more under Nsight Compute, and its task's reference beside it.
int runProfileCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("profile"),
                    QStringLiteral("Run a stored candidate once more under Nsight Compute (CUDA "
                                   "backend), and its task's reference beside it; store the "
                                   "key metrics and keep the report under profiles/ beside the "
                                   "database."));
    cli.addDbOption();
    cli.parser().addOption(
        {QStringLiteral("candidate"), QStringLiteral("The candidate's id."), QStringLiteral("ID")});
    cli.parser().addOption(
        {QStringLiteral("no-reference"), QStringLiteral("Profile the candidate alone.")});
    cli.addTasksDirOption();
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDb())
        return *missing;
    bool numeric = false;
    const qint64 candidateId = cli.parser().value(QStringLiteral("candidate")).toLongLong(&numeric);
    if (!numeric)
        return cli.usageError(QStringLiteral("--candidate ID is required"));
    QString error;
    auto store = RunStore::open(cli.db(), RunStore::Mode::ReadWrite, &error);
    if (!store)
        return cli.usageError(error);
    const std::atomic<bool> never{false};
    VerifierEvaluator evaluator(VerifierOptions::defaults(), 1);
    const auto records =
        ProfileSession::run(*store, TaskLibrary::standard(cli.tasksDirs()), evaluator, candidateId,
                            !cli.parser().isSet(QStringLiteral("no-reference")), never, &error);
    if (!records)
        return cli.usageError(error);
    bool profiled = true;
    QJsonArray rows;
    for (const ProfileRecord &record : *records) {
        profiled = profiled && record.ok;
        rows.append(record.toJson());
        if (!cli.json())
            printRecord(record);
    }
    if (cli.json())
        CommandLine::printJson(QJsonDocument(QJsonObject{{QStringLiteral("profiles"), rows}}));
    return profiled ? ExitOk : ExitInternal;
}

} // namespace kiln
