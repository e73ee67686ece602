#pragma once

#include "core/cheatflag.h"
#include "core/verdict.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// Everything the verdict depends on, gathered by the pipeline.
struct VerdictInputs
{
    bool compiled = true;
    bool objectBuilt = true; // compilation failed only at link time (an import was missing)
    std::optional<Verdict> runtimeFailure; // Crash, Timeout or Resource
    bool correct = false;
    QList<CheatFlag> flags;
};

// The verdict rules of verifier.md, in order:
// 1. compile failure: flagged when the object was built and a blocking flag explains the
//    failure (a forbidden library left unresolved), compile_error otherwise;
// 2. a crash, timeout or resource limit in any stage is that verdict (exit(0) is a crash);
// 3. any blocking flag: flagged, even when the output was also wrong (deliberate gaming);
// 4. wrong output: wrong;  5. otherwise pass.
class VerdictRules
{
public:
    static Verdict decide(const VerdictInputs &inputs);
};

} // namespace kiln
