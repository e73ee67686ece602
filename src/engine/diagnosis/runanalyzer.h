#pragma once

#include "engine/diagnosis/diagnosisfinding.h"
#include "engine/diagnosis/runhistory.h"

namespace kiln {

// One question asked of a run (has it stalled? is it sampling the same kernel?), answered from
// its history alone: no model calls, no evaluations, nothing that costs compute. Each analyzer
// states its formula in docs/diagnosis.md.
class RunAnalyzer
{
public:
    virtual ~RunAnalyzer() = default;
    virtual DiagnosisFinding analyze(const RunHistory &history) const = 0;
};

} // namespace kiln
