#include "fitness.h"

namespace kiln {

int failureProgress(const SearchNode &node)
{
    if (!node.generated)
        return 0;
    switch (node.verdict) {
    case Verdict::Pass:
        return 8;
    case Verdict::Wrong:
        return 7;
    case Verdict::Flagged:
        return 6;
    case Verdict::Timeout:
        return 5;
    case Verdict::Resource:
        return 4;
    case Verdict::Crash:
        return 3;
    case Verdict::CompileError:
        return 2;
    case Verdict::VerifierError: // no evidence about the candidate
        break;
    }
    return 1;
}

bool rankedHigher(const SearchNode &a, const SearchNode &b)
{
    if (a.correct != b.correct)
        return a.correct;
    if (a.correct && a.speedup != b.speedup)
        return a.speedup > b.speedup;
    if (!a.correct) {
        const int pa = failureProgress(a);
        const int pb = failureProgress(b);
        if (pa != pb)
            return pa > pb;
    }
    return a.arrival < b.arrival;
}

} // namespace kiln
