#include "engine/diagnosis/costefficiencyanalyzer.h"

#include <QJsonArray>

namespace kiln {

namespace {

constexpr int kMinimum = 8;
constexpr int kQuarters = 4;

struct Spend
{
    int evaluations = 0;
    double tokens = 0.0;
    double cost = 0.0;
    double gain = 0.0; // the rise of the run's value (RunHistory::valueAt) over the part
};

// The evaluations of [from, to), what they cost and how much the best rose over them.
Spend spendBetween(const RunHistory &history, int from, int to)
{
    Spend spend;
    spend.evaluations = to - from;
    for (int i = from; i < to; ++i) {
        const CandidateSummary &c = history.evaluated(i);
        spend.tokens += double(c.totalTokens());
        spend.cost += history.costs.value(c.id);
    }
    spend.gain = history.valueAt(to) - history.valueAt(from);
    return spend;
}

QJsonObject toJson(const Spend &s)
{
    QJsonObject o{{QStringLiteral("evaluations"), s.evaluations},
                  {QStringLiteral("tokens"), s.tokens},
                  {QStringLiteral("gain"), s.gain},
                  {QStringLiteral("gain_per_evaluation"), s.gain / std::max(1, s.evaluations)}};
    if (s.tokens > 0)
        o.insert(QStringLiteral("gain_per_1k_tokens"), 1000.0 * s.gain / s.tokens);
    if (s.cost > 0) {
        o.insert(QStringLiteral("cost"), s.cost);
        o.insert(QStringLiteral("gain_per_dollar"), s.gain / s.cost);
    }
    return o;
}

// 1 while the later half of the compute still buys at least half the gain, 5 when it bought
// nothing.
int rateLateYield(double lateShare, double total)
{
    if (total <= 0.0 || lateShare <= 0.0)
        return 5;
    if (lateShare >= 0.5)
        return 1;
    return lateShare >= 0.25 ? 2 : lateShare >= 0.1 ? 3 : 4;
}

} // namespace

// The speedup gained per evaluation, per 1,000 tokens and per dollar (where the policy has a
// price), quarter by quarter of the evaluations; the rating is from the later half's share of
// the whole gain. The gain is the rise of the run's value: the mean over its tasks of max(1, the
// task's best), so a pass slower than the reference gains nothing.
DiagnosisFinding CostEfficiencyAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("cost_efficiency"), QStringLiteral("Cost efficiency")};
    const int n = history.evaluatedCount();
    if (n < kMinimum) {
        f.finding = QStringLiteral("Too few evaluations to judge (%1).").arg(n);
        return f;
    }
    QJsonArray quarters;
    for (int q = 0; q < kQuarters; ++q)
        quarters.append(toJson(spendBetween(history, q * n / kQuarters, (q + 1) * n / kQuarters)));
    const Spend early = spendBetween(history, 0, n / 2);
    const Spend late = spendBetween(history, n / 2, n);
    const double total = early.gain + late.gain;
    const double lateShare = total > 0.0 ? late.gain / total : 0.0;
    f.rating = rateLateYield(lateShare, total);
    const bool tokens = early.tokens + late.tokens > 0;
    const auto rate = [&](const Spend &s) {
        return tokens ? QStringLiteral("%1x per 1k tokens")
                            .arg(1000.0 * s.gain / std::max(1.0, s.tokens), 0, 'g', 3)
                      : QStringLiteral("%1x per evaluation")
                            .arg(s.gain / std::max(1, s.evaluations), 0, 'g', 3);
    };
    f.finding = total > 0.0
                    ? QStringLiteral("The later half of the evaluations (%1) bought %2% of the "
                                     "run's gain: %3, against %4 in the first half.")
                          .arg(late.evaluations)
                          .arg(100.0 * lateShare, 0, 'f', 0)
                          .arg(rate(late), rate(early))
                    : QStringLiteral("%1 evaluations bought no passing speedup.").arg(n);
    for (const RunHistory::Improvement &improvement : history.improvements())
        if (improvement.position >= n / 2)
            f.candidates.append(improvement.candidate);
    f.rounds = history.roundsOf(f.candidates);
    f.figures.insert(QStringLiteral("quarters"), quarters);
    f.figures.insert(QStringLiteral("late_share_of_gain"), lateShare);
    return f;
}

} // namespace kiln
