// PlotData against curves worked out by hand, and PlotRun read back from a real store.
#include "models/plotdata.h"
#include "models/strategycomparison.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace kiln;

namespace {

CandidateSummary candidate(qint64 id, Verdict verdict, std::optional<double> speedup,
                           Operation operation = Operation::Sample)
{
    CandidateSummary c;
    c.id = id;
    c.operation = operation;
    c.evaluated = true;
    c.verdict = verdict;
    c.correct = verdict == Verdict::Pass || verdict == Verdict::Flagged;
    c.speedup = speedup;
    c.promptTokens = 100 * id;
    c.completionTokens = 10;
    c.reasoningTokens = 1;
    c.evaluationMs = 500.0;
    return c;
}

// Six requests: pass 1.5, wrong, pass 1.2, flagged 5.0, pass 2.0, and one not evaluated yet.
PlotRun sixCandidates()
{
    PlotRun run;
    run.run.id = 7;
    run.run.strategy = QStringLiteral("beam");
    run.run.tasks = {QStringLiteral("softmax")};
    run.run.createdAt = QDateTime::fromMSecsSinceEpoch(1000000, Qt::UTC);
    run.candidates = {candidate(1, Verdict::Pass, 1.5), candidate(2, Verdict::Wrong, std::nullopt),
                      candidate(3, Verdict::Pass, 1.2), candidate(4, Verdict::Flagged, 5.0),
                      candidate(5, Verdict::Pass, 2.0)};
    CandidateSummary pending;
    pending.id = 6;
    pending.promptTokens = 600;
    run.candidates.append(pending);
    for (qint64 id = 1; id <= 6; ++id) {
        CandidatePlotFacts f;
        f.cost = 0.25 * double(id);
        run.facts.insert(id, f);
    }
    return run;
}

void compareVectors(const QVector<double> &actual, const QVector<double> &expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (int i = 0; i < actual.size(); ++i)
        QVERIFY2(
            std::abs(actual[i] - expected[i]) < 1e-9,
            qPrintable(QStringLiteral("at %1: %2 vs %3").arg(i).arg(actual[i]).arg(expected[i])));
}

StepCurve curve(QVector<double> x, QVector<double> y, double end)
{
    StepCurve c;
    c.x = std::move(x);
    c.y = std::move(y);
    c.end = end;
    return c;
}

} // namespace

class TestPlotData : public QObject
{
    Q_OBJECT

private slots:
    void samplesAxisSteps()
    {
        const StepCurve c = PlotData::bestSpeedup(sixCandidates(), ComputeAxis::Samples);
        compareVectors(c.x, {0, 1, 5, 6});
        compareVectors(c.y, {0, 1.5, 2.0, 2.0});
        QCOMPARE(c.end, 6.0);
        QCOMPARE(c.records.size(), 2);
        QCOMPARE(c.records[0].candidateId, 1);
        QCOMPARE(c.records[1].candidateId, 5);
        QCOMPARE(c.valueAt(0.5), 0.0);
        QCOMPARE(c.valueAt(4.99), 1.5);
        QCOMPARE(c.valueAt(5.0), 2.0);
    }

    void leakyOverlayCountsFlagged()
    {
        const StepCurve c = PlotData::bestSpeedup(sixCandidates(), ComputeAxis::Samples, true);
        compareVectors(c.x, {0, 1, 4, 6});
        compareVectors(c.y, {0, 1.5, 5.0, 5.0});
        QCOMPARE(c.records.last().candidateId, 4);
    }

    void otherAxes()
    {
        const PlotRun run = sixCandidates();
        // Prompt tokens 100·id: cumulative 100, 300, 600, 1000, 1500, 2100.
        StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::PromptTokens);
        compareVectors(c.x, {0, 100, 1500, 2100});
        // All tokens add 11 per evaluated candidate; the pending one spent its prompt only.
        c = PlotData::bestSpeedup(run, ComputeAxis::AllTokens);
        compareVectors(c.x, {0, 111, 1555, 2155});
        // The pending candidate is no evaluation and no device time.
        c = PlotData::bestSpeedup(run, ComputeAxis::Evaluations);
        compareVectors(c.x, {0, 1, 5});
        QCOMPARE(c.end, 5.0);
        c = PlotData::bestSpeedup(run, ComputeAxis::DeviceSeconds);
        compareVectors(c.x, {0, 0.5, 2.5});
        // Cost 0.25·id: cumulative 0.25, 0.75, 1.5, 2.5, 3.75, 5.25.
        c = PlotData::bestSpeedup(run, ComputeAxis::Cost);
        compareVectors(c.x, {0, 0.25, 3.75, 5.25});
    }

    void wallSecondsFollowTheVerdicts()
    {
        PlotRun run = sixCandidates();
        const QDateTime start = run.run.createdAt;
        // Verdicts arrive out of request order: 5 first (at 2 s), then 1 (at 3 s).
        const QList<int> seconds{3, 4, 5, 6, 2, 9};
        for (qint64 id = 1; id <= 6; ++id)
            run.facts[id].evaluatedAt = start.addSecs(seconds[int(id) - 1]);
        const StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::WallSeconds);
        compareVectors(c.x, {0, 2, 9});
        compareVectors(c.y, {0, 2.0, 2.0});
        QCOMPARE(c.records.size(), 1); // 1.5 at 3 s is no new best after 2.0
    }

    // A run stopped for an hour and resumed: the wall axis counts the time it went, and a gap
    // of ordinary length (under a minute) is kept as it is.
    void wallSecondsLeaveStopsOut()
    {
        compareVectors(PlotData::activeSeconds({2, 4, 6, 3606, 3608}), {2, 4, 6, 8, 10});
        compareVectors(PlotData::activeSeconds({10, 50, 90}), {10, 50, 90});
        QVERIFY(PlotData::activeSeconds({}).isEmpty());
        PlotRun run = sixCandidates();
        const QDateTime start = run.run.createdAt;
        const QList<int> seconds{3, 4, 5, 4000, 4001, 4002};
        for (qint64 id = 1; id <= 6; ++id)
            run.facts[id].evaluatedAt = start.addSecs(seconds[int(id) - 1]);
        const StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::WallSeconds);
        QVERIFY2(c.x.last() < 60, qPrintable(QString::number(c.x.last())));
    }

    void bestCurveCarriesItsInterval()
    {
        PlotRun run = sixCandidates();
        run.candidates[0].speedupLow = 1.4; // #1 (1.5) and #5 (2.0) were timed with intervals
        run.candidates[0].speedupHigh = 1.62;
        run.candidates[4].speedupLow = 1.9;
        run.candidates[4].speedupHigh = 2.2;
        const StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::Samples);
        compareVectors(c.x, {0, 1, 5, 6});
        compareVectors(c.y, {0, 1.5, 2.0, 2.0});
        // The band follows the best so far, held to the end like the curve.
        compareVectors(c.low, {0, 1.4, 1.9, 1.9});
        compareVectors(c.high, {0, 1.62, 2.2, 2.2});
        QVERIFY(c.banded);
        QVERIFY(!c.confirmedOnly);
        QCOMPARE(PlotData::curveName(c),
                 run.label() + QStringLiteral(": best verified speedup, 95 % band"));
        // Measured without intervals: the band is the curve itself, and the legend says no band.
        const StepCurve plain = PlotData::bestSpeedup(sixCandidates(), ComputeAxis::Samples);
        QVERIFY(!plain.banded);
        compareVectors(plain.low, plain.y);
        compareVectors(plain.high, plain.y);
        QCOMPARE(PlotData::curveName(plain),
                 run.label() + QStringLiteral(": best verified speedup"));
    }

    void confirmedJudgementsOnlyOnceAnyIs()
    {
        PlotRun run = sixCandidates();
        // #5 measured 2.0 and was confirmed at 1.9; #1 and #3 passed but were never confirmed.
        CandidateSummary &confirmed = run.candidates[4];
        confirmed.speedup = 1.9;
        confirmed.speedupLow = 1.85;
        confirmed.speedupHigh = 1.95;
        confirmed.confirmed = true;
        const StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::Samples);
        QVERIFY(c.confirmedOnly);
        compareVectors(c.x, {0, 5, 6});
        compareVectors(c.y, {0, 1.9, 1.9});
        compareVectors(c.low, {0, 1.85, 1.85});
        compareVectors(c.high, {0, 1.95, 1.95});
        QCOMPARE(c.records.size(), 1);
        QCOMPARE(c.records[0].candidateId, 5);
        QCOMPARE(PlotData::curveName(c),
                 run.label() + QStringLiteral(": best confirmed speedup, 95 % band"));
        // The leaky overlay counts the flagged 5.0 as it is: no verifier confirmed it.
        const StepCurve leaky = PlotData::bestSpeedup(run, ComputeAxis::Samples, true);
        compareVectors(leaky.x, {0, 4, 6});
        compareVectors(leaky.y, {0, 5.0, 5.0});
    }

    // A reused judgement counts as one on the evaluations axis, as it does in the run's budget.
    void duplicatesCountAsJudgements()
    {
        const StepCurve plain = PlotData::bestSpeedup(sixCandidates(), ComputeAxis::Evaluations);
        PlotRun run = sixCandidates();
        run.candidates[2].duplicateOf = 1; // #3 reuses #1's judgement
        const StepCurve c = PlotData::bestSpeedup(run, ComputeAxis::Evaluations);
        compareVectors(c.x, plain.x);
        QCOMPARE(c.end, plain.end);
        QCOMPARE(c.end, 5.0);
    }

    void bandOverSeeds()
    {
        const StepCurve a = curve({0, 2, 4}, {0, 1, 3}, 4);
        const StepCurve b = curve({0, 1, 6}, {0, 2, 2}, 6);
        const SeedBand minMax = PlotData::band({a, b}, SeedBand::Kind::MinMax);
        // The common range ends at 4; the grid is every vertex up to there.
        compareVectors(minMax.x, {0, 1, 2, 4});
        compareVectors(minMax.median, {0, 1, 1.5, 2.5});
        compareVectors(minMax.low, {0, 0, 1, 2});
        compareVectors(minMax.high, {0, 2, 2, 3});
        QCOMPARE(minMax.runs, 2);
        const StepCurve c = curve({0, 3}, {0, 4}, 5);
        const SeedBand iqr = PlotData::band({a, b, c}, SeedBand::Kind::Interquartile);
        compareVectors(iqr.x, {0, 1, 2, 3, 4});
        // At x = 3 the values are 1, 2, 4: median 2, quartiles 1.5 and 3.
        QCOMPARE(iqr.median[3], 2.0);
        QCOMPARE(iqr.low[3], 1.5);
        QCOMPARE(iqr.high[3], 3.0);
    }

    void seedGroupsIgnoreTheSeed()
    {
        PlotRun a = sixCandidates(), b = a, c = a;
        a.run.config = {{QStringLiteral("strategy"), QStringLiteral("beam")},
                        {QStringLiteral("seed"), QStringLiteral("1")}};
        b.run.config = {{QStringLiteral("strategy"), QStringLiteral("beam")},
                        {QStringLiteral("seed"), QStringLiteral("2")}};
        c.run.config = {{QStringLiteral("strategy"), QStringLiteral("beam")},
                        {QStringLiteral("budget"), 64}};
        const QList<QList<int>> groups = PlotData::seedGroups({a, c, b});
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0], (QList<int>{0, 2}));
        QCOMPARE(groups[1], (QList<int>{1}));
    }

    void comparisonAtFractionsOfTheBudget()
    {
        // Two seeds of beam and one of best-of-n, eight evaluations each.
        auto run = [](const QString &strategy, int seed, const QList<double> &speedups) {
            PlotRun r;
            r.run.strategy = strategy;
            r.run.seed = quint64(seed);
            r.run.config = {{QStringLiteral("strategy"), strategy},
                            {QStringLiteral("seed"), QString::number(seed)}};
            for (int i = 0; i < speedups.size(); ++i)
                r.candidates.append(speedups[i] > 0 ? candidate(i + 1, Verdict::Pass, speedups[i])
                                                    : candidate(i + 1, Verdict::Wrong, {}));
            return r;
        };
        const QList<PlotRun> runs{run(QStringLiteral("beam"), 1, {0, 1.2, 0, 0, 2.0, 0, 0, 3.0}),
                                  run(QStringLiteral("best-of-n"), 1, {1.1, 0, 0, 0, 0, 0, 0, 0}),
                                  run(QStringLiteral("beam"), 2, {0, 0, 0, 1.5, 0, 0, 0, 0})};
        const QList<StrategyComparison::Row> rows =
            StrategyComparison::rows(runs, ComputeAxis::Evaluations, 8);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].strategy, QStringLiteral("beam"));
        QCOMPARE(rows[0].seeds, 2);
        // After 2, 4 and 8 evaluations: seed 1 has 1.2, 1.2, 3.0; seed 2 has 0, 1.5, 1.5.
        QCOMPARE(rows[0].median, (std::array<double, 3>{0.6, 1.35, 2.25}));
        QCOMPARE(rows[0].low, (std::array<double, 3>{0.0, 1.2, 1.5}));
        QCOMPARE(rows[0].high, (std::array<double, 3>{1.2, 1.5, 3.0}));
        QCOMPARE(rows[1].median, (std::array<double, 3>{1.1, 1.1, 1.1}));
        QCOMPARE(StrategyComparison::axisFor(BudgetAxis::Tokens), ComputeAxis::AllTokens);
    }

    void coverageClosedForm()
    {
        PlotRun run;
        run.candidates = {candidate(1, Verdict::Pass, 1.2), candidate(2, Verdict::Wrong, {}),
                          candidate(3, Verdict::Pass, 2.5), candidate(4, Verdict::Flagged, 9.0),
                          // Not an independent sample: left out of the estimator.
                          candidate(5, Verdict::Pass, 3.0, Operation::Refine)};
        const CoverageSeries s = PlotData::coverage(run);
        QCOMPARE(s.n, 4);
        compareVectors(s.k, {1, 2, 3, 4});
        // pass@k = 1 - C(n-c, k) / C(n, k) with n = 4, c = 2.
        compareVectors(s.passAtK, {0.5, 1.0 - 1.0 / 6.0, 1.0, 1.0});
        QCOMPARE(s.thresholds, (QList<double>{0.0, 1.0, 1.5, 2.0}));
        // fast_2: one success (2.5): 1 - C(3, k) / C(4, k).
        compareVectors(s.fastPAtK[3], {0.25, 0.5, 0.75, 1.0});
        compareVectors(s.fastPAtK[0], s.passAtK);
    }

    // A suite's coverage per task: each task's own pass@k, and their mean where every task
    // reaches k (pooling the samples would mix tasks).
    void coveragePerTask()
    {
        PlotRun run;
        QList<CandidateSummary> list = {
            candidate(1, Verdict::Pass, 1.2), candidate(2, Verdict::Wrong, {}),
            candidate(3, Verdict::Wrong, {}), candidate(4, Verdict::Wrong, {}),
            candidate(5, Verdict::Wrong, {})};
        for (int i = 0; i < list.size(); ++i)
            list[i].task = i < 2 ? QStringLiteral("softmax") : QStringLiteral("matmul");
        run.candidates = list;
        QCOMPARE(PlotData::sampledTasks(run),
                 (QStringList{QStringLiteral("softmax"), QStringLiteral("matmul")}));
        const CoverageSeries softmax = PlotData::coverage(run, QStringLiteral("softmax"));
        const CoverageSeries matmul = PlotData::coverage(run, QStringLiteral("matmul"));
        QCOMPARE(softmax.n, 2);
        QCOMPARE(matmul.n, 3);
        compareVectors(softmax.passAtK, {0.5, 1.0});
        compareVectors(matmul.passAtK, {0.0, 0.0, 0.0}); // a task no sample solves stays flat
        const CoverageSeries mean = PlotData::meanOverTasks({softmax, matmul});
        compareVectors(mean.k, {1, 2});
        compareVectors(mean.passAtK, {0.25, 0.5});
        // Pooled, the same samples claim 1 - C(4, 2) / C(5, 2) = 0.4 at k = 2.
        QVERIFY(std::abs(PlotData::coverage(run).passAtK[1] - 0.4) < 1e-9);
    }

    void coverageOfManySamples()
    {
        // 5,000 samples, every tenth passing at 2x: k spread on a log scale, ending at n.
        PlotRun run;
        for (int i = 0; i < 5000; ++i)
            run.candidates.append(i % 10 == 0 ? candidate(i + 1, Verdict::Pass, 2.0)
                                              : candidate(i + 1, Verdict::Wrong, {}));
        const CoverageSeries s = PlotData::coverage(run);
        QCOMPARE(s.n, 5000);
        QVERIFY(s.k.size() <= 201);
        QCOMPARE(s.k.first(), 1.0);
        QCOMPARE(s.k.last(), 5000.0);
        QVERIFY(std::is_sorted(s.k.cbegin(), s.k.cend()));
        QVERIFY(std::abs(s.passAtK.first() - 0.1) < 1e-12);
        QCOMPARE(s.fastPAtK[3].first(), 0.0); // nothing is faster than 2x
        QVERIFY(std::abs(s.fastPAtK[2].first() - 0.1) < 1e-12);
    }

    void reasoningFit()
    {
        PlotRun run;
        for (int i = 1; i <= 3; ++i) {
            CandidateSummary c = candidate(i, Verdict::Pass, double(i));
            c.reasoningTokens = 100 * i;
            run.candidates.append(c);
        }
        CandidateSummary wrong = candidate(4, Verdict::Wrong, {});
        wrong.reasoningTokens = 50;
        run.candidates.append(wrong);
        const ReasoningSeries s = PlotData::reasoning(run);
        QCOMPARE(s.xTitle, QStringLiteral("reasoning tokens"));
        QCOMPARE(s.speedups.size(), 3);
        QCOMPARE(s.correctness.size(), 4);
        QVERIFY(std::abs(s.slope - 0.01) < 1e-12);
        QVERIFY(std::abs(s.intercept) < 1e-12);
        QVERIFY(std::abs(s.speedupR - 1.0) < 1e-12);
        QVERIFY(s.correctR > 0.5); // the only failure has the shortest reasoning
        // Without intervals each error bar is empty: low and high are the speedup itself.
        QCOMPARE(s.speedupLow, (QVector<double>{1.0, 2.0, 3.0}));
        QCOMPARE(s.speedupHigh, (QVector<double>{1.0, 2.0, 3.0}));
        run.candidates[1].speedupLow = 1.8;
        run.candidates[1].speedupHigh = 2.3;
        const ReasoningSeries withInterval = PlotData::reasoning(run);
        QCOMPARE(withInterval.speedupLow, (QVector<double>{1.0, 1.8, 3.0}));
        QCOMPARE(withInterval.speedupHigh, (QVector<double>{1.0, 2.3, 3.0}));
    }

    void timingHistogram()
    {
        TimingStats candidate = TimingStats::fromSamples({1.0, 1.0, 2.0});
        TimingStats baseline = TimingStats::fromSamples({3.0, 4.0});
        const TimingHistogram h = PlotData::timing(candidate, baseline, 3);
        compareVectors(h.binCenters, {1.5, 2.5, 3.5});
        QCOMPARE(h.binWidth, 1.0);
        compareVectors(h.candidate, {2, 1, 0});
        compareVectors(h.baseline, {0, 0, 2});
        QCOMPARE(h.candidateMedian, 1.0);
        QCOMPARE(h.baselineMedian, 3.5);
    }

    void trialsSurviveJson()
    {
        const TimingStats stats = TimingStats::fromSamples({0.123456, 2.0, 1.5});
        QCOMPARE(stats.trials, (QList<double>{0.1235, 2.0, 1.5})); // call order, 4 digits
        QVERIFY(!stats.toJson().contains(QStringLiteral("trials")));
        QCOMPARE(TimingStats::fromJson(stats.toJsonWithTrials()).trials, stats.trials);
        std::vector<double> many(TimingStats::kMaxTrials + 50, 1.0);
        QCOMPARE(TimingStats::fromSamples(many).trials.size(), TimingStats::kMaxTrials);
    }

    void rooflinePlacement()
    {
        PlotRun run;
        CandidateSummary c = candidate(1, Verdict::Pass, 2.0);
        c.candidateMs = 1.0;
        run.candidates = {c, candidate(2, Verdict::Wrong, {})};
        CandidatePlotFacts f;
        f.flops = 2e9;
        f.bytes = 1e9;
        f.bandwidthGbps = 100;
        f.peakTflops = 1.0;
        run.facts.insert(1, f);
        run.facts.insert(2, f);
        const RooflineSeries s = PlotData::roofline(run);
        QCOMPARE(s.points.size(), 1);
        QCOMPARE(s.points[0].x, 2.0);
        QCOMPARE(s.points[0].y, 2000.0);
        QCOMPARE(s.roofAt(2.0), 200.0);
        QCOMPARE(s.roofAt(100.0), 1000.0);
        QCOMPARE(s.ridge(), 10.0);
    }

    void fastPSteps()
    {
        // Level 1: speedups 0.8, 1.5, 1.5 and 4.0 (torch.compile: 0.5, none, 1.2, 2.0), one
        // problem failed; level 2: nothing correct.
        auto p = [](int level, bool correct, std::optional<double> eager,
                    std::optional<double> compiled) {
            return FastPProblem{QStringLiteral("t"), level, correct, eager, compiled};
        };
        const FastPSeries s =
            PlotData::fastP({p(1, true, 0.8, 0.5), p(1, true, 1.5, {}), p(1, true, 1.5, 1.2),
                             p(1, true, 4.0, 2.0), p(1, false, {}, {}), p(2, false, {}, {})},
                            3.0);
        QCOMPARE(s.problems, 6);
        QCOMPARE(s.curves.size(), 4);
        const FastPCurve &eager = s.curves[0];
        QCOMPARE(eager.level, 1);
        QVERIFY(!eager.compiled);
        QCOMPARE(eager.problems, 5);
        // One step down per distinct speedup (1.5 twice: one step of two), none past p = 3.
        compareVectors(eager.p, {0.0, 0.8, 1.5, 3.0});
        compareVectors(eager.fraction, {0.8, 0.6, 0.2, 0.2});
        QCOMPARE(eager.valueAt(0.0), 0.8);
        QCOMPARE(eager.valueAt(1.0), 0.6);
        QCOMPARE(eager.valueAt(1.5), 0.2); // 1.5 is not above 1.5
        QCOMPARE(eager.valueAt(2.0), 0.2);
        const FastPCurve &compiled = s.curves[1];
        QVERIFY(compiled.compiled);
        // The untimed one is correct (fast_0) but faster than nothing.
        compareVectors(compiled.p, {0.0, 0.0, 0.5, 1.2, 2.0, 3.0});
        compareVectors(compiled.fraction, {0.8, 0.6, 0.4, 0.2, 0.0, 0.0});
        QCOMPARE(compiled.valueAt(0.0), 0.8);
        QCOMPARE(compiled.valueAt(1.0), 0.4);
        // The same values as the report's table at its thresholds.
        const FastPLevel row =
            FastPMetrics::byLevel({p(1, true, 0.8, 0.5), p(1, true, 1.5, {}), p(1, true, 1.5, 1.2),
                                   p(1, true, 4.0, 2.0), p(1, false, {}, {})})
                .first();
        for (int i = 0; i < FastPMetrics::thresholds().size(); ++i) {
            const double at = FastPMetrics::thresholds()[i];
            QCOMPARE(eager.valueAt(at), row.eager[i]);
            QCOMPARE(compiled.valueAt(at), row.compiled[i]);
        }
        const FastPCurve &none = s.curves[2];
        QCOMPARE(none.level, 2);
        compareVectors(none.p, {0.0, 3.0});
        compareVectors(none.fraction, {0.0, 0.0});
        QVERIFY(PlotData::fastP({}).curves.isEmpty());
    }

    void readFromAStore()
    {
        QTemporaryDir dir;
        auto store =
            RunStore::open(dir.filePath(QStringLiteral("w.db")), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("best_of_n");
        QVERIFY(store->createRun(run) > 0);
        CandidateRecord a;
        a.runId = run.id;
        a.task = QStringLiteral("softmax");
        a.source = QStringLiteral("// a");
        a.policyMeta = {{QStringLiteral("cost"), 0.125}};
        CandidateRecord b = a;
        b.policyMeta = {};
        QVERIFY(store->addCandidate(a) > 0);
        QVERIFY(store->addCandidate(b) > 0);
        EvaluationResult result;
        result.verdict = Verdict::Pass;
        result.correct = true;
        result.speedup = 1.5;
        result.candidateMs = 2.0;
        result.candidateTiming = TimingStats::fromSamples({2.0, 2.5, 1.9});
        StageResult timing;
        timing.name = QStringLiteral("timing");
        timing.ok = true;
        timing.data = {{QStringLiteral("bytes"), 4e6},
                       {QStringLiteral("flops"), 1e6},
                       {QStringLiteral("bandwidth_gbps"), 50.0},
                       {QStringLiteral("peak_tflops"), 0.5}};
        result.stages.append(timing);
        QVERIFY(store->addEvaluation(a.id, result) > 0);

        const PlotRun plotted = PlotRun::load(*store, run.id);
        QCOMPARE(plotted.candidates.size(), 2);
        QCOMPARE(plotted.facts.size(), 2);
        const CandidatePlotFacts fa = plotted.facts.value(a.id);
        QCOMPARE(fa.cost, 0.125);
        QVERIFY(fa.evaluatedAt.has_value());
        QCOMPARE(fa.bytes, 4e6);
        QCOMPARE(fa.flops, 1e6);
        QCOMPARE(fa.bandwidthGbps, 50.0);
        QCOMPARE(fa.peakTflops, 0.5);
        QVERIFY(!plotted.facts.value(b.id).evaluatedAt);
        QCOMPARE(store->evaluation(a.id)->candidateTiming.trials, (QList<double>{2.0, 2.5, 1.9}));
        QCOMPARE(PlotData::bestSpeedup(plotted, ComputeAxis::Cost).records.size(), 1);
        QVERIFY(!PlotRun::load(*store, 999).run.id);
    }
};

QTEST_GUILESS_MAIN(TestPlotData)
#include "tst_plotdata.moc"
