#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// Near-duplicates among the recent candidates (docs/diagnosis.md).
class ExplorationCollapseAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
