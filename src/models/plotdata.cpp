#include "plotdata.h"

#include "engine/reports/coveragemetrics.h"

#include <QHash>
#include <QMap>
#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

// With `confirmedOnly`, a pass counts once confirmed; a flagged one of the leaky overlay counts
// as it is (a verifier without the cheat checks would have confirmed it as well).
bool countsAsBest(const CandidateSummary &c, bool leaky, bool confirmedOnly = false)
{
    if (!c.evaluated || !c.speedup || c.placeholder)
        return false;
    if (c.verdict == Verdict::Pass)
        return c.confirmed || !confirmedOnly;
    return leaky && c.verdict == Verdict::Flagged;
}

bool confirmsAny(const PlotRun &run)
{
    return std::any_of(run.candidates.cbegin(), run.candidates.cend(),
                       [](const CandidateSummary &c) { return c.evaluated && c.confirmed; });
}

// A new best at x: a vertex of the curve (or, where several results share x, the last one
// raised) with its interval, and a record.
void raiseBest(StepCurve &curve, double x, const CandidateSummary &c)
{
    const double best = *c.speedup;
    const std::optional<SpeedupInterval> interval = c.speedupInterval();
    curve.banded = curve.banded || interval.has_value();
    if (x == curve.x.last()) {
        if (!curve.records.isEmpty() && curve.records.last().x == x)
            curve.records.removeLast();
    } else {
        curve.x.append(x);
        curve.y.append(0.0);
        curve.low.append(0.0);
        curve.high.append(0.0);
    }
    curve.y.last() = best;
    curve.low.last() = interval ? interval->low : best;
    curve.high.last() = interval ? interval->high : best;
    curve.records.append({x, best, c.id});
}

struct Spent
{
    double x = 0.0;
    const CandidateSummary *candidate = nullptr;
};

// Where each candidate's result arrived on the axis, in the order the results arrived.
QList<Spent> spentAlong(const PlotRun &run, ComputeAxis axis)
{
    QList<Spent> spent;
    double total = 0.0;
    const CandidatePlotFacts none;
    for (const CandidateSummary &c : run.candidates) {
        if (c.placeholder)
            continue;
        const CandidatePlotFacts &facts = run.facts.contains(c.id) ? run.facts[c.id] : none;
        if (axis == ComputeAxis::WallSeconds) {
            const QDateTime at = facts.evaluatedAt.value_or(c.createdAt);
            spent.append({std::max(0.0, run.run.createdAt.msecsTo(at) / 1000.0), &c});
            continue;
        }
        total += PlotData::spentBy(c, facts, axis);
        spent.append({total, &c});
    }
    if (axis == ComputeAxis::WallSeconds) {
        std::stable_sort(spent.begin(), spent.end(),
                         [](const Spent &a, const Spent &b) { return a.x < b.x; });
        QVector<double> seconds;
        for (const Spent &s : spent)
            seconds.append(s.x);
        seconds = PlotData::activeSeconds(seconds);
        for (qsizetype i = 0; i < spent.size(); ++i)
            spent[i].x = seconds[i];
    }
    return spent;
}

// One level's step curve: the share correct at 0, then a step down at each distinct speedup
// below pMax (a speedup of exactly p is not above p), held to pMax.
FastPCurve fastPCurve(const QList<FastPProblem> &problems, int level, bool compiled, double pMax)
{
    FastPCurve curve;
    curve.level = level;
    curve.compiled = compiled;
    curve.problems = int(problems.size());
    QVector<double> speedups;
    for (const FastPProblem &p : problems) {
        if (!p.correct)
            continue;
        const std::optional<double> s = compiled ? p.compiledSpeedup : p.speedup;
        speedups.append(s ? std::max(0.0, *s) : 0.0); // no timing: faster than nothing
    }
    std::sort(speedups.begin(), speedups.end());
    const double n = std::max(1, curve.problems);
    curve.p.append(0.0);
    curve.fraction.append(speedups.size() / n);
    for (int i = 0; i < speedups.size(); ++i) {
        const double at = speedups[i];
        if (at > pMax || (i + 1 < speedups.size() && speedups[i + 1] == at))
            continue;
        curve.p.append(at);
        curve.fraction.append((speedups.size() - i - 1) / n);
    }
    if (curve.p.last() < pMax) {
        curve.p.append(pMax);
        curve.fraction.append(curve.fraction.last());
    }
    return curve;
}

QList<int> coverageKs(int n)
{
    constexpr int kPoints = 200;
    QList<int> ks;
    for (int i = 0; i < std::min(n, kPoints); ++i) {
        const int k =
            n <= kPoints ? i + 1 : int(std::lround(std::pow(double(n), double(i) / (kPoints - 1))));
        if (ks.isEmpty() || k > ks.last())
            ks.append(k);
    }
    if (n > 0 && ks.last() != n)
        ks.append(n);
    return ks;
}

} // namespace

double StepCurve::valueAt(double at) const
{
    const auto it = std::upper_bound(x.cbegin(), x.cend(), at);
    if (it == x.cbegin())
        return 0.0;
    return y.at(int(it - x.cbegin()) - 1);
}

double FastPCurve::valueAt(double at) const
{
    // fast_0 is the share correct; beyond 0 the last vertex at or before `at` holds (a step at
    // exactly `at` already applies: a speedup of p is not above p).
    if (fraction.isEmpty())
        return 0.0;
    const auto it = std::upper_bound(p.cbegin(), p.cend(), at);
    if (at <= 0.0 || it == p.cbegin())
        return fraction.first();
    return fraction.at(int(it - p.cbegin()) - 1);
}

double RooflineSeries::roofAt(double intensity) const
{
    return std::min(peakGflops, bandwidthGbps * intensity);
}

double PlotData::spentBy(const CandidateSummary &c, const CandidatePlotFacts &facts,
                         ComputeAxis axis)
{
    switch (axis) {
    case ComputeAxis::Samples:
        return 1.0;
    case ComputeAxis::PromptTokens:
        return double(c.promptTokens);
    case ComputeAxis::CompletionTokens:
        return double(c.completionTokens);
    case ComputeAxis::ReasoningTokens:
        return double(c.reasoningTokens);
    case ComputeAxis::AllTokens:
        return double(c.totalTokens());
    case ComputeAxis::Evaluations: // a duplicate's reused judgement counts, as in the budget
        return c.evaluated ? 1.0 : 0.0;
    case ComputeAxis::DeviceSeconds:
        return c.evaluated ? c.evaluationMs / 1000.0 : 0.0;
    case ComputeAxis::Cost:
        return facts.cost;
    case ComputeAxis::WallSeconds:
        return 0.0;
    }
    return 0.0;
}

QVector<double> PlotData::activeSeconds(const QVector<double> &sortedSeconds)
{
    QVector<double> gaps;
    double previous = 0.0;
    for (double t : sortedSeconds) {
        gaps.append(t - previous);
        previous = t;
    }
    QVector<double> sortedGaps = gaps;
    std::sort(sortedGaps.begin(), sortedGaps.end());
    const double median = sortedGaps.isEmpty() ? 0.0 : quantile(sortedGaps, 0.5);
    const double still = std::max(60.0, 10.0 * median);
    QVector<double> active;
    double at = 0.0;
    for (double gap : gaps) {
        at += gap > still ? median : gap;
        active.append(at);
    }
    return active;
}

StepCurve PlotData::bestSpeedup(const PlotRun &run, ComputeAxis axis, bool leaky)
{
    StepCurve curve;
    curve.label = run.label();
    curve.confirmedOnly = confirmsAny(run);
    curve.x.append(0.0);
    curve.y.append(0.0);
    curve.low.append(0.0);
    curve.high.append(0.0);
    for (const Spent &s : spentAlong(run, axis)) {
        curve.end = std::max(curve.end, s.x);
        const CandidateSummary &c = *s.candidate;
        // Several results at one point: the best of them holds.
        if (countsAsBest(c, leaky, curve.confirmedOnly) && *c.speedup > curve.y.last())
            raiseBest(curve, s.x, c);
    }
    if (curve.end > curve.x.last()) { // the last step is held to the end of the run
        curve.x.append(curve.end);
        curve.y.append(curve.y.last());
        curve.low.append(curve.low.last());
        curve.high.append(curve.high.last());
    }
    return curve;
}

QList<CandidatePoint> PlotData::pointsOnCurve(const PlotRun &run, ComputeAxis axis,
                                              const QSet<qint64> &ids)
{
    QList<CandidatePoint> points;
    if (ids.isEmpty())
        return points;
    const StepCurve curve = bestSpeedup(run, axis);
    for (const Spent &s : spentAlong(run, axis))
        if (ids.contains(s.candidate->id))
            points.append({s.x, curve.valueAt(s.x), s.candidate->id});
    return points;
}

QString PlotData::curveName(const StepCurve &curve)
{
    QString what = curve.confirmedOnly ? QStringLiteral("best confirmed speedup")
                                       : QStringLiteral("best verified speedup");
    if (curve.banded)
        what += QStringLiteral(", 95 % band");
    return curve.label.isEmpty() ? what : curve.label + QStringLiteral(": ") + what;
}

SeedBand PlotData::band(const QList<StepCurve> &curves, SeedBand::Kind kind)
{
    SeedBand band;
    band.runs = int(curves.size());
    if (curves.isEmpty())
        return band;
    double end = curves.first().end;
    for (const StepCurve &c : curves)
        end = std::min(end, c.end);
    QVector<double> grid{0.0, end};
    for (const StepCurve &c : curves)
        for (double x : c.x)
            if (x <= end)
                grid.append(x);
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    for (double x : grid) {
        QVector<double> values;
        for (const StepCurve &c : curves)
            values.append(c.valueAt(x));
        std::sort(values.begin(), values.end());
        band.x.append(x);
        band.median.append(quantile(values, 0.5));
        const bool minMax = kind == SeedBand::Kind::MinMax;
        band.low.append(minMax ? values.first() : quantile(values, 0.25));
        band.high.append(minMax ? values.last() : quantile(values, 0.75));
    }
    return band;
}

QList<QList<int>> PlotData::seedGroups(const QList<PlotRun> &runs)
{
    QList<QList<int>> groups;
    QHash<QString, int> groupOf;
    for (int i = 0; i < runs.size(); ++i) {
        const QString key = runs[i].settingsKey();
        auto it = groupOf.find(key);
        if (it == groupOf.end()) {
            it = groupOf.insert(key, int(groups.size()));
            groups.append(QList<int>());
        }
        groups[*it].append(i);
    }
    return groups;
}

QStringList PlotData::sampledTasks(const PlotRun &run)
{
    QStringList tasks;
    for (const CandidateSummary &c : run.candidates)
        if (!c.placeholder && c.operation == Operation::Sample && !tasks.contains(c.task))
            tasks << c.task;
    return tasks;
}

CoverageSeries PlotData::meanOverTasks(const QList<CoverageSeries> &tasks)
{
    CoverageSeries mean;
    if (tasks.isEmpty())
        return mean;
    int reach = std::numeric_limits<int>::max();
    for (const CoverageSeries &t : tasks)
        reach = std::min(reach, t.k.isEmpty() ? 0 : int(t.k.last()));
    for (const CoverageSeries &t : tasks)
        mean.n += t.n;
    for (int i = 0; i < tasks.first().k.size() && tasks.first().k[i] <= reach; ++i) {
        const double k = tasks.first().k[i];
        double sum = 0.0;
        for (const CoverageSeries &t : tasks) {
            const qsizetype at = t.k.indexOf(k);
            sum += at >= 0 ? t.passAtK[at] : 0.0;
        }
        mean.k.append(k);
        mean.passAtK.append(sum / double(tasks.size()));
    }
    return mean;
}

CoverageSeries PlotData::coverage(const PlotRun &run, const QString &task)
{
    CoverageSeries series;
    series.thresholds = {0.0, 1.0, 1.5, 2.0};
    QList<bool> passed;
    QList<double> speedups;
    for (const CandidateSummary &c : run.candidates) {
        if (c.placeholder || !c.evaluated || c.operation != Operation::Sample ||
            (!task.isEmpty() && c.task != task))
            continue;
        passed.append(c.verdict == Verdict::Pass);
        speedups.append(c.speedup.value_or(0.0));
    }
    series.n = int(passed.size());
    series.fastPAtK.resize(series.thresholds.size());
    // Successes counted once; every k up to 200 samples, then 200 k's spread evenly on a log
    // scale (each estimate costs O(successes)).
    int passes = 0;
    QList<int> fast(series.thresholds.size(), 0);
    for (int i = 0; i < series.n; ++i) {
        passes += passed[i] ? 1 : 0;
        for (int t = 0; t < series.thresholds.size(); ++t)
            fast[t] += passed[i] && speedups[i] > series.thresholds[t] ? 1 : 0;
    }
    for (int k : coverageKs(series.n)) {
        series.k.append(k);
        series.passAtK.append(CoverageMetrics::atK(series.n, passes, k));
        for (int t = 0; t < series.thresholds.size(); ++t)
            series.fastPAtK[t].append(CoverageMetrics::atK(series.n, fast[t], k));
    }
    return series;
}

ReasoningSeries PlotData::reasoning(const PlotRun &run)
{
    ReasoningSeries series;
    bool anyReasoning = false;
    for (const CandidateSummary &c : run.candidates)
        anyReasoning = anyReasoning || (c.evaluated && c.reasoningTokens > 0);
    series.xTitle = anyReasoning ? QStringLiteral("reasoning tokens")
                                 : QStringLiteral("requested reasoning length (tokens)");
    QList<double> sx, sy, cx, cy;
    for (const CandidateSummary &c : run.candidates) {
        if (c.placeholder || !c.evaluated)
            continue;
        const double x = double(anyReasoning ? c.reasoningTokens : c.reasoningLength);
        const bool pass = c.verdict == Verdict::Pass;
        series.correctness.append({x, pass ? 1.0 : 0.0, c.id});
        cx.append(x);
        cy.append(pass ? 1.0 : 0.0);
        if (pass && c.speedup) {
            series.speedups.append({x, *c.speedup, c.id});
            const std::optional<SpeedupInterval> interval = c.speedupInterval();
            series.speedupLow.append(interval ? interval->low : *c.speedup);
            series.speedupHigh.append(interval ? interval->high : *c.speedup);
            sx.append(x);
            sy.append(*c.speedup);
        }
    }
    series.speedupR = CoverageMetrics::pearson(sx, sy);
    series.correctR = CoverageMetrics::pearson(cx, cy);
    const double n = double(sx.size());
    if (n >= 2) {
        double mx = 0, my = 0;
        for (int i = 0; i < sx.size(); ++i) {
            mx += sx[i] / n;
            my += sy[i] / n;
        }
        double sxy = 0, sxx = 0;
        for (int i = 0; i < sx.size(); ++i) {
            sxy += (sx[i] - mx) * (sy[i] - my);
            sxx += (sx[i] - mx) * (sx[i] - mx);
        }
        series.slope = sxx > 0 ? sxy / sxx : 0.0;
        series.intercept = my - series.slope * mx;
    }
    return series;
}

TimingHistogram PlotData::timing(const TimingStats &candidate, const TimingStats &baseline,
                                 int bins)
{
    TimingHistogram h;
    h.candidateMedian = candidate.median;
    h.baselineMedian = baseline.median;
    h.candidateTrials = int(candidate.trials.size());
    h.baselineTrials = int(baseline.trials.size());
    QList<double> all = candidate.trials + baseline.trials;
    if (all.isEmpty() || bins < 1)
        return h;
    const auto [lo, hi] = std::minmax_element(all.cbegin(), all.cend());
    const double low = *lo;
    const double span = *hi > *lo ? *hi - *lo : std::max(1e-9, std::abs(*lo) * 0.01);
    h.binWidth = span / bins;
    h.candidate.fill(0.0, bins);
    h.baseline.fill(0.0, bins);
    for (int b = 0; b < bins; ++b)
        h.binCenters.append(low + (b + 0.5) * h.binWidth);
    auto binOf = [&](double t) { return std::clamp(int((t - low) / h.binWidth), 0, bins - 1); };
    for (double t : candidate.trials)
        h.candidate[binOf(t)] += 1.0;
    for (double t : baseline.trials)
        h.baseline[binOf(t)] += 1.0;
    return h;
}

RooflineSeries PlotData::roofline(const PlotRun &run)
{
    RooflineSeries series;
    for (const CandidateSummary &c : run.candidates) {
        const auto it = run.facts.constFind(c.id);
        if (it == run.facts.cend())
            continue;
        series.bandwidthGbps = std::max(series.bandwidthGbps, it->bandwidthGbps);
        series.peakGflops = std::max(series.peakGflops, it->peakTflops * 1e3);
        if (!countsAsBest(c, false) || !c.candidateMs || *c.candidateMs <= 0 || it->flops <= 0 ||
            it->bytes <= 0)
            continue;
        series.points.append(
            {it->flops / it->bytes, it->flops / (*c.candidateMs * 1e-3) / 1e9, c.id});
    }
    return series;
}

FastPSeries PlotData::fastP(const QList<FastPProblem> &problems, double pMax)
{
    FastPSeries series;
    series.pMax = pMax;
    series.problems = int(problems.size());
    QMap<int, QList<FastPProblem>> byLevel;
    for (const FastPProblem &p : problems)
        byLevel[p.level].append(p);
    for (auto it = byLevel.cbegin(); it != byLevel.cend(); ++it)
        for (bool compiled : {false, true})
            series.curves.append(fastPCurve(*it, it.key(), compiled, pMax));
    return series;
}

double PlotData::quantile(const QVector<double> &sorted, double q)
{
    if (sorted.isEmpty())
        return 0.0;
    const double at = q * double(sorted.size() - 1);
    const int below = int(std::floor(at));
    const int above = std::min(int(sorted.size()) - 1, below + 1);
    return sorted[below] + (at - below) * (sorted[above] - sorted[below]);
}

} // namespace kiln
