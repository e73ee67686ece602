#pragma once

#include "core/evaluationresult.h"

#include <QString>

namespace kiln {

// A concise, model-readable account of what the verifier said about a candidate: verdict,
// compile diagnostics, mismatch statistics, timing / speedup / roofline, cheat flags. It is
// what a refinement prompt carries as {{feedback}}; kept short because every token costs.
// Every text a policy is shown about a result comes from here. A failure on inputs a policy is
// never shown (the hidden correctness set, whose correctness stage says "failed_on": "hidden",
// and the timed calls, whose inputs come from the run's secret too) is named with its verdict
// only: no shape, value, address or candidate output, which could carry what the candidate saw
// of those inputs back to the policy. The user's report keeps everything.
class FeedbackSummary
{
public:
    static QString describe(const EvaluationResult &result, int maxChars = 4000);
    // The result's one-line summary as a policy may read it.
    static QString policySummary(const EvaluationResult &result);
    // Where the failure the result reports was seen on inputs a policy is not shown: the stage
    // whose details are withheld ("correctness" or "timing"), else empty.
    static QString hiddenFailureStage(const EvaluationResult &result);
};

} // namespace kiln
