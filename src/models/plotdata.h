#pragma once

#include "computeaxis.h"
#include "plotrun.h"
#include "plotseries.h"
#include <QSet>

#include "core/timingstats.h"
#include "engine/reports/fastpmetrics.h"

namespace kiln {

// Turns stored runs into the series the Plots panel draws (plots.md of the user guide says what
// each one means). Pure functions of their arguments: unit-tested without widgets.
class PlotData
{
public:
    // Compute one candidate adds on an axis (wall seconds are a time, not a sum: 0 here).
    static double spentBy(const CandidateSummary &candidate, const CandidatePlotFacts &facts,
                          ComputeAxis axis);
    // Best verified speedup against compute spent. With `leaky`, flagged candidates count as if
    // they had passed: what a verifier without the cheat checks would have reported.
    // A run that confirms any judgement counts only confirmed ones, as the engine's report does;
    // the curve carries the 95 % interval of each best.
    static StepCurve bestSpeedup(const PlotRun &run, ComputeAxis axis, bool leaky = false);
    // Where each of `ids` stands on the run's best-speedup curve: at the compute spent when its
    // result arrived, at the best then (a diagnosis finding's evidence, marked on the curve).
    static QList<CandidatePoint> pointsOnCurve(const PlotRun &run, ComputeAxis axis,
                                               const QSet<qint64> &ids);
    // What the curve is, for a legend: "<run>: best confirmed speedup, 95 % band".
    static QString curveName(const StepCurve &curve);
    // Median and band of seed runs' curves.
    static SeedBand band(const QList<StepCurve> &curves, SeedBand::Kind kind);
    // Indices into `runs`, grouped by settings key, groups in order of first appearance.
    static QList<QList<int>> seedGroups(const QList<PlotRun> &runs);
    // Over the run's samples, or only those of `task` when one is named.
    static CoverageSeries coverage(const PlotRun &run, const QString &task = QString());
    // The tasks of the run's samples, in their first sample's order.
    static QStringList sampledTasks(const PlotRun &run);
    // pass@k averaged over the tasks' own curves, for every k each of them reaches (the per-task
    // figure of a suite: pooling the samples mixes tasks and hides a task's plateau).
    static CoverageSeries meanOverTasks(const QList<CoverageSeries> &tasks);
    static ReasoningSeries reasoning(const PlotRun &run);
    static TimingHistogram timing(const TimingStats &candidate, const TimingStats &baseline,
                                  int bins = 30);
    static RooflineSeries roofline(const PlotRun &run);
    // fast_p from p = 0 to pMax for each level of the problems (FastPMetrics's definition).
    static FastPSeries fastP(const QList<FastPProblem> &problems, double pMax = 3.0);
    // Quantile q of sorted values, linear between order statistics.
    static double quantile(const QVector<double> &sorted, double q);
    // Seconds since a run started, in increasing order, with the time it stood still taken
    // out: a gap longer than a minute and ten times the run's median gap is a stop or a pause
    // (resumed later), and counts as one median gap.
    static QVector<double> activeSeconds(const QVector<double> &sortedSeconds);
};

} // namespace kiln
