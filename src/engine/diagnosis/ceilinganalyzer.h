#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// The best's roofline fraction: how little is left to find (docs/diagnosis.md).
class CeilingAnalyzer : public RunAnalyzer
{
public:
    // The fractions that start ratings 2..5; the suite allocator's "diagnosed" mode uses them too.
    static constexpr double kThresholds[4] = {0.2, 0.4, 0.6, 0.8};

    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
