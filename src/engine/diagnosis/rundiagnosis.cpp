#include "engine/diagnosis/rundiagnosis.h"

#include "engine/diagnosis/ceilinganalyzer.h"
#include "engine/diagnosis/costefficiencyanalyzer.h"
#include "engine/diagnosis/depthwidthanalyzer.h"
#include "engine/diagnosis/evaluatornoiseanalyzer.h"
#include "engine/diagnosis/explorationcollapseanalyzer.h"
#include "engine/diagnosis/hackingpressureanalyzer.h"
#include "engine/diagnosis/misconceptionanalyzer.h"
#include "engine/diagnosis/stagnationanalyzer.h"

#include <QJsonArray>
#include <memory>

namespace kiln {

namespace {

// "ids 4, 9, 12 (+3 more)": evidence short enough for a terminal line.
QString listed(const QList<qint64> &ids, const QString &what)
{
    constexpr qsizetype kShown = 12;
    QStringList words;
    for (qsizetype i = 0; i < std::min(kShown, ids.size()); ++i)
        words << QString::number(ids[i]);
    QString text = what + QLatin1Char(' ') + words.join(QStringLiteral(", "));
    if (ids.size() > kShown)
        text += QStringLiteral(" (+%1 more)").arg(ids.size() - kShown);
    return text;
}

} // namespace

QList<DiagnosisFinding> RunDiagnosis::diagnose(const RunHistory &history)
{
    const std::unique_ptr<RunAnalyzer> analyzers[] = {
        std::make_unique<StagnationAnalyzer>(),
        std::make_unique<ExplorationCollapseAnalyzer>(),
        std::make_unique<MisconceptionAnalyzer>(),
        std::make_unique<EvaluatorNoiseAnalyzer>(),
        std::make_unique<CeilingAnalyzer>(),
        std::make_unique<CostEfficiencyAnalyzer>(),
        std::make_unique<HackingPressureAnalyzer>(),
        std::make_unique<DepthWidthAnalyzer>()};
    QList<DiagnosisFinding> findings;
    for (const std::unique_ptr<RunAnalyzer> &analyzer : analyzers)
        findings.append(analyzer->analyze(history));
    return findings;
}

QJsonObject RunDiagnosis::toJson(qint64 runId, const RunHistory &history,
                                 const QList<DiagnosisFinding> &findings)
{
    QJsonArray list;
    for (const DiagnosisFinding &finding : findings)
        list.append(finding.toJson());
    return {{QStringLiteral("run"), runId},
            {QStringLiteral("candidates"), int(history.candidates().size())},
            {QStringLiteral("evaluated"), history.evaluatedCount()},
            {QStringLiteral("findings"), list}};
}

QString RunDiagnosis::toText(const QList<DiagnosisFinding> &findings)
{
    QString text;
    for (const DiagnosisFinding &f : findings) {
        text += QStringLiteral("%1 %2/5  %3\n")
                    .arg(f.title.leftJustified(24))
                    .arg(f.rating)
                    .arg(f.finding);
        QStringList evidence;
        if (!f.candidates.isEmpty())
            evidence << listed(f.candidates, QStringLiteral("candidates"));
        if (!f.rounds.isEmpty()) {
            QList<qint64> rounds;
            for (int round : f.rounds)
                rounds.append(round);
            evidence << listed(rounds, QStringLiteral("rounds"));
        }
        if (!evidence.isEmpty())
            text += QStringLiteral("%1 evidence: %2\n")
                        .arg(QString(), -24)
                        .arg(evidence.join(QStringLiteral("; ")));
    }
    return text;
}

} // namespace kiln
