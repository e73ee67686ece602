#include "cli/commandline.h"
#include "cli/commands.h"
#include "core/profiletext.h"
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
    return ProfileText::number(object.value(QString::fromLatin1(key)).toDouble());
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
    // The same lines a prompt carries (ProfileText), one fact a line.
    std::printf("%s\n", qPrintable(ProfileText::metricLines(record.metrics)));
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
