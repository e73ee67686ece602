#pragma once

#include "core/evaluationresult.h"

#include <QString>

namespace kiln {

// A concise, model-readable account of what the verifier said about a candidate: verdict,
// compile diagnostics, mismatch statistics, timing / speedup / roofline, cheat flags. It is
// what a refinement prompt carries as {{feedback}}; kept short because every token costs.
class FeedbackSummary
{
public:
    static QString describe(const EvaluationResult &result, int maxChars = 4000);
};

} // namespace kiln
