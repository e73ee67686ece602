#include "engine/reports/profilereport.h"

#include "core/profiletext.h"

#include <QJsonArray>
#include <QStringList>

namespace kiln {

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 4);
}

} // namespace

QString ProfileReport::verifierData(const EvaluationResult &e)
{
    QStringList lines;
    lines << QStringLiteral("- backend: %1").arg(backendName(e.backend));
    lines << QStringLiteral("- verdict: %1").arg(verdictName(e.verdict));
    if (e.candidateMs)
        lines << QStringLiteral("- kernel time: %1 ms").arg(number(*e.candidateMs));
    if (e.baselineMs)
        lines << QStringLiteral("- baseline time: %1 ms").arg(number(*e.baselineMs));
    if (e.speedup)
        lines << QStringLiteral("- speedup over the baseline: %1x").arg(number(*e.speedup));
    if (e.rooflineFraction)
        lines << QStringLiteral("- roofline fraction: %1").arg(number(*e.rooflineFraction));
    for (const StageResult &stage : e.stages) {
        const QString bound = stage.data.value(QStringLiteral("bound")).toString();
        if (!bound.isEmpty())
            lines << QStringLiteral("- limiter named by the verifier: %1").arg(bound);
    }
    if (e.candidateTiming.n > 0)
        lines << QStringLiteral("- timing spread: %1 samples, relative SEM %2")
                     .arg(e.candidateTiming.n)
                     .arg(number(e.candidateTiming.relativeSem()));
    return lines.join(QLatin1Char('\n'));
}

QString ProfileReport::text(const EvaluationResult &evaluation, const StageResult &profile)
{
    QString text;
    if (profile.ok)
        text = QStringLiteral("Hardware profile (%1):\n%2\n\n")
                   .arg(profile.detail, ProfileText::metricLines(profile.data));
    else
        text = QStringLiteral("No hardware profile: %1.\n\n").arg(profile.detail);
    return text + QStringLiteral("Verifier data:\n") + verifierData(evaluation);
}

} // namespace kiln
