#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// Evaluations since the best last rose, as a share of the budget (docs/diagnosis.md).
class StagnationAnalyzer : public RunAnalyzer
{
public:
    // The shares that start ratings 2..5; the suite allocator's "diagnosed" mode uses them too.
    static constexpr double kThresholds[4] = {0.2, 0.35, 0.5, 0.7};

    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
