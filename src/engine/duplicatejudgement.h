#pragma once

#include "core/evaluationresult.h"

namespace kiln {

// The judgement a duplicate source receives: its original's, marked as reused. The verdict,
// speedup with its interval, flags and confirmation carry over; the stages become one
// "duplicate" stage of no time (nothing ran), so no device time is charged twice.
class DuplicateJudgement
{
public:
    static EvaluationResult of(const EvaluationResult &original, qint64 originalId);
    // Whether a stored judgement is a reused one (not a remeasured duplicate).
    static bool isReused(const EvaluationResult &result);
};

} // namespace kiln
