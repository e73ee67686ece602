#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// The best's gain per evaluation, token and dollar, early against late (docs/diagnosis.md).
class CostEfficiencyAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
