#pragma once

#include "core/verdict.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <optional>

namespace kiln {

// One judged candidate of a KernelBench problem: its latest verdict and its speedups against
// eager PyTorch and against torch.compile (either may be missing).
struct FastPSample
{
    QString task;
    Verdict verdict = Verdict::Crash;
    std::optional<double> speedup;
    std::optional<double> compiledSpeedup;
};

// A problem as fast_p counts it: correct when one of its candidates passed; each speedup is the
// best among its passing candidates against that baseline (empty when none was measured).
struct FastPProblem
{
    QString task;
    int level = 0;
    bool correct = false;
    std::optional<double> speedup;
    std::optional<double> compiledSpeedup;
};

// fast_p of one KernelBench level, one value per threshold, against both baselines.
struct FastPLevel
{
    int level = 0;
    int problems = 0;
    int correct = 0;
    int compiledMeasured = 0; // problems whose passing candidates have a torch.compile timing
    QList<double> eager;      // fast_p against eager PyTorch, by threshold
    QList<double> compiled;   // against torch.compile
};

// KernelBench's metric: fast_p = the share of problems whose best candidate is correct and more
// than p times faster than the baseline; fast_0 is the share correct. One problem counts once,
// however many runs searched it. Pure functions, so the tests give rows with known answers.
class FastPMetrics
{
public:
    // The thresholds the report shows: 0, 1, 1.5, 2.
    static const QList<double> &thresholds();
    // "fast_0", "fast_1", "fast_1.5", "fast_2".
    static QString key(double p);
    // Every task of `levels` (task -> level) becomes one problem, also one with no sample;
    // samples of other tasks are ignored. Only a pass is correct: a flagged or wrong candidate
    // never counts, however fast. Sorted by level, then task.
    static QList<FastPProblem> bestPerTask(const QMap<QString, int> &levels,
                                           const QList<FastPSample> &samples);
    // Whether a problem counts for fast_p: correct, and for p > 0 faster than p.
    static bool isFast(const FastPProblem &problem, double p, bool compiled);
    // fast_p over some problems; 0 when there are none.
    static double fraction(const QList<FastPProblem> &problems, double p, bool compiled);
    // One row per level present, in level order.
    static QList<FastPLevel> byLevel(const QList<FastPProblem> &problems,
                                     const QList<double> &ps = thresholds());
    // The report's `fast_p` object: {"1": {"problems", "correct", "fast_0", ..., "compiled":
    // {"problems", "measured", "fast_0", ...}}, ...}; rows made with the default thresholds.
    static QJsonObject toJson(const QList<FastPLevel> &levels);
    // The level in a KernelBench task name, "kb1_019_relu" -> 1; empty for other names.
    static std::optional<int> levelFromTaskName(const QString &task);
};

} // namespace kiln
