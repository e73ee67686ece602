#pragma once

#include <QList>
#include <QString>
#include <QVector>

namespace kiln {

// The value types the plot-data builders (PlotData) hand to the Plots panel: numbers only, no
// widget and no store, so that tests compare them with curves computed by hand.

// A point that stands for one candidate (hover and click find it by id).
struct CandidatePoint
{
    double x = 0.0;
    double y = 0.0;
    qint64 candidateId = 0;
};

// Best verified speedup so far against compute spent: a step function, held from each vertex to
// the next (0 until a candidate passes), with a marker where the best improved. low and high,
// when not empty, are the 95 % interval of the best at each vertex (y itself for a best measured
// without one).
struct StepCurve
{
    QString label;
    QVector<double> x;
    QVector<double> y;
    QVector<double> low;
    QVector<double> high;
    QList<CandidatePoint> records; // each new best, in order
    double end = 0.0;              // the compute the run spent in all
    bool confirmedOnly = false;    // the run confirms its bests: only confirmed ones count
    bool banded = false;           // some best had an interval: low and high say something
    double valueAt(double at) const;
};

// Several runs that differ only in their seed: the median curve and a band around it, on the
// union of their vertices, over the range every one of them covers.
struct SeedBand
{
    enum class Kind
    {
        MinMax,
        Interquartile
    };
    QString label;
    int runs = 0;
    QVector<double> x;
    QVector<double> median;
    QVector<double> low;
    QVector<double> high;
};

// Coverage over n independent samples (operation "sample"), the unbiased estimator, k = 1..n.
struct CoverageSeries
{
    int n = 0;
    QVector<double> k;
    QVector<double> passAtK;
    QList<double> thresholds;        // p of fast_p@k: 0, 1, 1.5, 2
    QList<QVector<double>> fastPAtK; // one curve per threshold
};

// Speedup (passing candidates) and correctness (every evaluated one) against reasoning tokens.
struct ReasoningSeries
{
    QString xTitle; // what the x-axis counts
    QList<CandidatePoint> speedups;
    QVector<double> speedupLow; // each speedup's 95 % interval (the speedup itself without one)
    QVector<double> speedupHigh;
    QList<CandidatePoint> correctness; // y is 0 or 1
    double slope = 0.0;                // least-squares line through the speedups
    double intercept = 0.0;
    double speedupR = 0.0; // Pearson r, speedup against tokens
    double correctR = 0.0; // Pearson r, correctness against tokens
};

// Histograms of one candidate's timed trials and of its baseline's, on shared bins (ms).
struct TimingHistogram
{
    QVector<double> binCenters;
    double binWidth = 0.0;
    QVector<double> candidate;
    QVector<double> baseline;
    double candidateMedian = 0.0;
    double baselineMedian = 0.0;
    int candidateTrials = 0;
    int baselineTrials = 0;
};

// Passing candidates by arithmetic intensity (FLOP per byte) and achieved rate (GFLOP/s),
// under the measured roofs.
struct RooflineSeries
{
    QList<CandidatePoint> points;
    double bandwidthGbps = 0.0; // memory roof: GFLOP/s = bandwidth x intensity
    double peakGflops = 0.0;    // compute roof
    double ridge() const { return bandwidthGbps > 0 ? peakGflops / bandwidthGbps : 0.0; }
    double roofAt(double intensity) const;
};

// fast_p against a continuous threshold p, one step curve per KernelBench level and baseline:
// y(p) is the share of the level's problems whose best candidate is correct and faster than p
// (y(0) the share correct), held from each vertex to the next.
struct FastPCurve
{
    int level = 0;
    bool compiled = false; // against torch.compile; else eager PyTorch
    int problems = 0;
    QVector<double> p;
    QVector<double> fraction;
    double valueAt(double at) const;
};

struct FastPSeries
{
    int problems = 0;
    int runs = 0;        // runs counted (the caller fills in these two)
    int lenientRuns = 0; // runs left out as judged by the lenient verifier
    double pMax = 3.0;
    QList<FastPCurve> curves; // by level, eager before torch.compile
};

} // namespace kiln
