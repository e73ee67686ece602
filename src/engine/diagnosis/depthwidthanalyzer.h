#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// Where the best's raises came from against where the evaluations went (docs/diagnosis.md).
class DepthWidthAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
