#include "feedbacksummary.h"

#include "core/profiletext.h"

#include <QJsonArray>
#include <QStringList>

namespace kiln {

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 4);
}

// Scalar entries of a stage's structured data ("max_abs_error=0.5"), in key order; nested
// objects and arrays are summarised elsewhere or skipped to keep the prompt short.
QStringList scalarEntries(const QJsonObject &data, int limit)
{
    QStringList entries;
    for (auto it = data.begin(); it != data.end() && entries.size() < limit; ++it) {
        const QJsonValue value = it.value();
        if (value.isDouble())
            entries << it.key() + QLatin1Char('=') + number(value.toDouble());
        else if (value.isBool())
            entries << it.key() + QLatin1Char('=') +
                           (value.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
        else if (value.isString() && value.toString().size() <= 80 &&
                 !value.toString().contains(QLatin1Char('\n')))
            entries << it.key() + QLatin1Char('=') + value.toString();
    }
    return entries;
}

// Compiler output may sit under one of a few keys depending on the stage; a long log is cut
// at the front because the first errors are the ones worth fixing.
QString diagnostics(const QJsonObject &data)
{
    static const QStringList keys{QStringLiteral("log"), QStringLiteral("diagnostics"),
                                  QStringLiteral("stderr"), QStringLiteral("output")};
    for (const QString &key : keys) {
        const QJsonValue value = data.value(key);
        if (value.isString() && !value.toString().trimmed().isEmpty())
            return value.toString().trimmed();
        if (value.isArray()) {
            QStringList lines;
            for (const QJsonValue &item : value.toArray()) {
                if (item.isString())
                    lines << item.toString();
                else if (item.isObject()) {
                    const QJsonObject d = item.toObject();
                    QString line = d.value(QStringLiteral("message")).toString();
                    if (d.contains(QStringLiteral("line")))
                        line = QStringLiteral("line %1: %2")
                                   .arg(d.value(QStringLiteral("line")).toInt())
                                   .arg(line);
                    lines << line;
                }
            }
            if (!lines.isEmpty())
                return lines.join(QLatin1Char('\n'));
        }
    }
    return QString();
}

// What went wrong, in words that carry nothing of the inputs.
QString verdictPhrase(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Wrong:
        return QStringLiteral("wrong");
    case Verdict::Crash:
        return QStringLiteral("crashed");
    case Verdict::Timeout:
        return QStringLiteral("timed out");
    case Verdict::Resource:
        return QStringLiteral("ran out of resources");
    case Verdict::VerifierError:
        return QStringLiteral("could not be judged (the verifier's own reference or baseline "
                              "failed, not your code)");
    default:
        return QStringLiteral("failed");
    }
}

QString withheld(const EvaluationResult &result, const QString &stage)
{
    if (stage == QLatin1String("timing") && result.verdict == Verdict::Wrong)
        return QStringLiteral("wrong in a timed call on hidden inputs (values not shown)");
    if (stage == QLatin1String("timing"))
        return QStringLiteral("%1 during timing (details not shown: timed calls run on hidden "
                              "inputs)")
            .arg(verdictPhrase(result.verdict));
    return QStringLiteral("%1 on hidden inputs (shape and values not shown)")
        .arg(verdictPhrase(result.verdict));
}

// "Timing: candidate .. ms, baseline .. ms, speedup ..x, ..."
QString timingLine(const EvaluationResult &result)
{
    QStringList timing;
    if (result.candidateMs)
        timing << QStringLiteral("candidate %1 ms").arg(number(*result.candidateMs));
    if (result.baselineMs)
        timing << QStringLiteral("baseline %1 ms").arg(number(*result.baselineMs));
    if (result.speedup)
        timing << QStringLiteral("speedup %1x").arg(number(*result.speedup));
    // KernelBench: the baseline above is eager PyTorch; torch.compile is the harder one.
    if (result.compiledBaselineMs)
        timing << QStringLiteral("torch.compile baseline %1 ms")
                      .arg(number(*result.compiledBaselineMs));
    if (result.compiledSpeedup)
        timing
            << QStringLiteral("speedup vs torch.compile %1x").arg(number(*result.compiledSpeedup));
    if (result.candidateTiming.n > 0)
        timing << QStringLiteral("n=%1, relative SEM %2%")
                      .arg(result.candidateTiming.n)
                      .arg(number(100.0 * result.candidateTiming.relativeSem()));
    return QStringLiteral("Timing: ") + timing.join(QStringLiteral(", "));
}

// A hard flag blocks; a suspicious one asks for a look; telemetry is advice (no mark).
QString flagLine(const CheatFlag &flag)
{
    QString mark;
    if (flag.blocking)
        mark = QStringLiteral(" (blocking)");
    else if (flag.isSuspicious())
        mark = QStringLiteral(" (suspicious)");
    QString line = QStringLiteral("Flag %1%2: %3").arg(flag.id, mark, flag.message);
    if (!flag.lines.isEmpty()) {
        QStringList lines;
        for (int l : flag.lines)
            lines << QString::number(l);
        line += QStringLiteral(" [lines ") + lines.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    return line;
}

} // namespace

QString FeedbackSummary::hiddenFailureStage(const EvaluationResult &result)
{
    // A duplicate's judgement is its original's, whose stages it does not keep.
    if (const StageResult *duplicate = result.stage(QStringLiteral("duplicate")))
        return duplicate->data.value(QStringLiteral("hidden_failure")).toString();
    const StageResult *correctness = result.stage(QStringLiteral("correctness"));
    if (correctness && !correctness->ok)
        return correctness->data.value(QStringLiteral("failed_on")).toString() ==
                       QLatin1String("hidden")
                   ? QStringLiteral("correctness")
                   : QString();
    // Timed calls run after the hidden set, on inputs drawn from the secret: a failure there
    // may carry (in values, an address, the candidate's stderr) what the candidate saw of them.
    const StageResult *timing = result.stage(QStringLiteral("timing"));
    if (correctness && timing && !timing->ok)
        return QStringLiteral("timing");
    return {};
}

QString FeedbackSummary::policySummary(const EvaluationResult &result)
{
    const QString hidden = hiddenFailureStage(result);
    if (hidden.isEmpty() || result.verdict == Verdict::Flagged)
        return result.summary;
    if (result.duplicateOf)
        return QStringLiteral("duplicate of #%1: %2")
            .arg(*result.duplicateOf)
            .arg(withheld(result, hidden));
    return withheld(result, hidden);
}

QString FeedbackSummary::describe(const EvaluationResult &result, int maxChars)
{
    QStringList out;
    const QString hidden = hiddenFailureStage(result);
    const QString summary = policySummary(result);
    QString verdictLine = QStringLiteral("Verdict: %1").arg(verdictName(result.verdict));
    if (!summary.isEmpty())
        verdictLine += QStringLiteral(" - ") + summary;
    out << verdictLine;

    for (const StageResult &stage : result.stages) {
        if (stage.ok && stage.name != QStringLiteral("correctness"))
            continue;
        QString line =
            QStringLiteral("Stage %1: %2")
                .arg(stage.name, stage.ok ? QStringLiteral("ok") : QStringLiteral("FAILED"));
        QString detail = stage.detail;
        if (!hidden.isEmpty() && stage.name == hidden)
            detail = withheld(result, hidden);
        else if (!hidden.isEmpty() && stage.name == QLatin1String("verdict"))
            detail = summary;
        if (!detail.isEmpty())
            line += QStringLiteral(" - ") + detail;
        out << line;
        if (!stage.ok) {
            const QStringList entries = scalarEntries(stage.data, 12);
            if (!entries.isEmpty())
                out << QStringLiteral("  ") + entries.join(QStringLiteral(", "));
            QString diag = diagnostics(stage.data);
            if (!diag.isEmpty()) {
                if (diag.size() > 1500)
                    diag = diag.left(1500) + QStringLiteral("\n[... diagnostics truncated]");
                out << QStringLiteral("```\n") + diag + QStringLiteral("\n```");
            }
        }
    }

    if (result.candidateMs || result.baselineMs || result.speedup)
        out << timingLine(result);
    if (result.rooflineFraction)
        out << QStringLiteral("Roofline: %1% of the hardware limit for this task")
                   .arg(number(100.0 * *result.rooflineFraction));
    for (const CheatFlag &flag : result.flags)
        out << flagLine(flag);
    // A stored hardware profile of this candidate (ProfileSession::withStoredProfile), last, so
    // the limit cuts it before the verdict's reasons.
    if (const StageResult *profile = result.stage(QStringLiteral("hardware_profile"));
        profile && profile->ok)
        out << QStringLiteral("Hardware profile (%1):\n%2")
                   .arg(profile->detail, ProfileText::metricLines(profile->data));

    QString text = out.join(QLatin1Char('\n'));
    if (maxChars > 0 && text.size() > maxChars)
        text = text.left(maxChars) + QStringLiteral("\n[... feedback truncated]");
    return text;
}

} // namespace kiln
