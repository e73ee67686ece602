#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// The largest group of fresh samples that failed the same way (docs/diagnosis.md).
class MisconceptionAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
