#pragma once

#include "engine/diagnosis/runanalyzer.h"

namespace kiln {

// How much of the best's lead is inside its confidence interval (docs/diagnosis.md).
class EvaluatorNoiseAnalyzer : public RunAnalyzer
{
public:
    DiagnosisFinding analyze(const RunHistory &history) const override;
};

} // namespace kiln
