#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// The flagged rate of the later half of the run (docs/diagnosis.md).
class HackingPressureAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
