#pragma once

#include "searchnode.h"

namespace kiln {

// The ordering every strategy ranks candidates by: correct candidates by speedup; then
// failures, the ones that got further through the verifier first (their feedback is the most
// useful to refine from); then candidates without code; ties go to the earlier arrival.
int failureProgress(const SearchNode &node);
bool rankedHigher(const SearchNode &a, const SearchNode &b);

} // namespace kiln
