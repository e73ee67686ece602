#include "cli/commandline.h"
#include "cli/commands.h"
#include "engine/reports/runreport.h"
#include "store/runstore.h"

#include <QFile>
#include <QJsonArray>
#include <QTextStream>
#include <cstdio>

namespace kiln {

namespace {

QString csvField(const QString &value)
{
    if (!value.contains(QLatin1Char(',')) && !value.contains(QLatin1Char('"')) &&
        !value.contains(QLatin1Char('\n')))
        return value;
    QString quoted = value;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString optionalNumber(const std::optional<double> &value)
{
    return value ? QString::number(*value, 'g', 10) : QString();
}

QByteArray toCsv(RunStore &store, qint64 runId)
{
    QString out;
    QTextStream s(&out);
    s << "candidate_id,parent_id,second_parent_id,operation,generation,island,task,policy,verdict,"
         "speedup,candidate_ms,baseline_ms,roofline_fraction,prompt_tokens,completion_tokens,"
         "reasoning_tokens,reasoning_length,flags,speedup_low,speedup_high,confirmed,"
         "duplicate_of\n";
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    for (const CandidateRecord &c : store.candidates(runId)) {
        const auto it = evaluations.constFind(c.id);
        const bool evaluated = it != evaluations.cend();
        QStringList flags;
        if (evaluated) {
            for (const CheatFlag &f : it->flags)
                flags.append(f.id);
        }
        const QStringList fields{
            QString::number(c.id),
            c.parent ? QString::number(*c.parent) : QString(),
            c.secondParent ? QString::number(*c.secondParent) : QString(),
            operationName(c.operation),
            QString::number(c.generation),
            QString::number(c.island),
            c.task,
            c.policy,
            evaluated ? verdictName(it->verdict) : QStringLiteral("no_code"),
            evaluated ? optionalNumber(it->speedup) : QString(),
            evaluated ? optionalNumber(it->candidateMs) : QString(),
            evaluated ? optionalNumber(it->baselineMs) : QString(),
            evaluated ? optionalNumber(it->rooflineFraction) : QString(),
            QString::number(c.promptTokens),
            QString::number(c.completionTokens),
            QString::number(c.reasoningTokens),
            QString::number(c.reasoningLength),
            flags.join(QLatin1Char(';')),
            evaluated && it->speedupInterval ? optionalNumber(it->speedupInterval->low) : QString(),
            evaluated && it->speedupInterval ? optionalNumber(it->speedupInterval->high)
                                             : QString(),
            evaluated && it->confirmed ? QStringLiteral("1") : QStringLiteral("0"),
            evaluated && it->duplicateOf ? QString::number(*it->duplicateOf) : QString()};
        QStringList escaped;
        for (const QString &f : fields)
            escaped.append(csvField(f));
        s << escaped.join(QLatin1Char(',')) << '\n';
    }
    s.flush();
    return out.toUtf8();
}

QByteArray toJson(RunStore &store, qint64 runId)
{
    QJsonArray candidates;
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    for (const CandidateRecord &c : store.candidates(runId)) {
        QJsonObject object = c.toJson();
        const auto it = evaluations.constFind(c.id);
        object.insert(QStringLiteral("evaluation"), it == evaluations.cend()
                                                        ? QJsonValue(QJsonValue::Null)
                                                        : QJsonValue(it->toJson()));
        // Its hardware profiles (kiln-cli profile), newest first, where it has any.
        QJsonArray profiles;
        for (const ProfileRecord &profile : store.profiles(c.id))
            profiles.append(profile.toJson());
        if (!profiles.isEmpty())
            object.insert(QStringLiteral("profiles"), profiles);
        candidates.append(object);
    }
    const QJsonObject document{{QStringLiteral("run"), RunReport::runJson(store, runId)},
                               {QStringLiteral("candidates"), candidates}};
    return QJsonDocument(document).toJson(QJsonDocument::Indented);
}

} // namespace

int runExportCommand(const QStringList &arguments)
{
    CommandLine cli(QStringLiteral("export"),
                    QStringLiteral("Export one run's candidates and evaluations as JSON or CSV."));
    cli.addDbOption();
    cli.addRunOption();
    cli.parser().addOption({QStringLiteral("format"), QStringLiteral("json or csv."),
                            QStringLiteral("FORMAT"), QStringLiteral("json")});
    cli.parser().addOption({QStringLiteral("out"), QStringLiteral("Write here instead of stdout."),
                            QStringLiteral("FILE")});
    if (const auto done = cli.parse(arguments))
        return *done;
    if (const auto missing = cli.requireDb())
        return *missing;
    const QString db = cli.db();
    const QString format = cli.parser().value(QStringLiteral("format"));
    if (format != QLatin1String("json") && format != QLatin1String("csv"))
        return cli.usageError(QStringLiteral("--format must be json or csv, not '%1'").arg(format));
    if (const auto missing = cli.requireRunId())
        return *missing;
    const qint64 runId = *cli.runId();
    QString error;
    const auto store = RunStore::open(db, RunStore::Mode::ReadOnly, &error);
    if (!store)
        return cli.usageError(error);
    if (!store->run(runId))
        return cli.usageError(QStringLiteral("no run %1 in %2").arg(runId).arg(db));

    const QByteArray bytes =
        format == QLatin1String("csv") ? toCsv(*store, runId) : toJson(*store, runId);
    const QString outPath = cli.parser().value(QStringLiteral("out"));
    if (outPath.isEmpty()) {
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
        return ExitOk;
    }
    QFile file(outPath);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        return cli.usageError(
            QStringLiteral("cannot write %1: %2").arg(outPath, file.errorString()));
    return ExitOk;
}

} // namespace kiln
