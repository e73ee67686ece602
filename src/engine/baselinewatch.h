#pragma once

#include "core/evaluationresult.h"

#include <QList>
#include <optional>

namespace kiln {

// The same reference, timed in every evaluation of a run's task, should take the same time: a
// baseline far from the run's usual one says that judgement ran under other conditions (a busy
// or throttled machine), so its speedup is less comparable with the others'. Advisory only.
class BaselineWatch
{
public:
    static constexpr int kMinimumEarlier = 3;  // judgements of the task before one can stand out
    static constexpr double kTolerance = 0.25; // a quarter slower or faster than the median

    // The advisory flag `baseline_outlier` when `result`'s baseline stands out against the
    // median of `earlier` baselines (ms) of the same task and backend.
    static std::optional<CheatFlag> check(const EvaluationResult &result,
                                          const QList<double> &earlier);
};

} // namespace kiln
