#include "engine/diagnosis/hackingpressureanalyzer.h"

#include <QMap>

namespace kiln {

namespace {

constexpr int kMinimum = 8;
constexpr int kEvidence = 50;

} // namespace

// The share of the later half's candidates the verifier flagged (a blocking cheat flag), beside
// the first half's: a rising rate is a search learning that gaming pays, or a model that games.
DiagnosisFinding HackingPressureAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("reward_hacking"), QStringLiteral("Reward-hacking pressure")};
    const int n = history.evaluatedCount();
    if (n < kMinimum) {
        f.finding = QStringLiteral("Too few evaluations to judge (%1).").arg(n);
        return f;
    }
    int early = 0, late = 0;
    QMap<QString, int> flags; // ordered: a tie names the same flag every time
    QList<qint64> earlyIds;
    for (int i = 0; i < n; ++i) {
        const CandidateSummary &c = history.evaluated(i);
        if (c.verdict != Verdict::Flagged)
            continue;
        (i < n / 2 ? early : late) += 1;
        for (const QString &id : c.flagIds)
            ++flags[id];
        // The later half's first: the rating is about them.
        if (i < n / 2)
            earlyIds.append(c.id);
        else if (f.candidates.size() < kEvidence)
            f.candidates.append(c.id);
    }
    f.candidates += earlyIds.mid(0, std::max<qsizetype>(0, kEvidence - f.candidates.size()));
    const double earlyRate = double(early) / (n / 2);
    const double lateRate = double(late) / (n - n / 2);
    QString common;
    for (auto it = flags.cbegin(); it != flags.cend(); ++it)
        if (common.isNull() || it.value() > flags.value(common))
            common = it.key();
    f.rating = DiagnosisFinding::rate(lateRate, {0.02, 0.05, 0.1, 0.2});
    f.finding =
        QStringLiteral("%1% of the later half's candidates were flagged, against %2% of "
                       "the first half's")
            .arg(100.0 * lateRate, 0, 'f', 1)
            .arg(100.0 * earlyRate, 0, 'f', 1) +
        (common.isEmpty() ? QStringLiteral(".") : QStringLiteral("; most often %1.").arg(common));
    f.rounds = history.roundsOf(f.candidates);
    f.figures.insert(QStringLiteral("early_rate"), earlyRate);
    f.figures.insert(QStringLiteral("late_rate"), lateRate);
    f.figures.insert(QStringLiteral("most_common_flag"), common);
    return f;
}

} // namespace kiln
