#include "verifier/harness/verdictrules.h"

namespace kiln {

Verdict VerdictRules::decide(const VerdictInputs &inputs)
{
    bool blocking = false;
    for (const CheatFlag &flag : inputs.flags)
        blocking = blocking || flag.blocking;
    if (!inputs.compiled)
        return inputs.objectBuilt && blocking ? Verdict::Flagged : Verdict::CompileError;
    // A blocking flag already judged the candidate; the verifier failing afterwards on its own
    // side does not take that back.
    if (inputs.runtimeFailure && !(blocking && *inputs.runtimeFailure == Verdict::VerifierError))
        return *inputs.runtimeFailure;
    if (blocking)
        return Verdict::Flagged;
    return inputs.correct ? Verdict::Pass : Verdict::Wrong;
}

} // namespace kiln
