#pragma once

#include "core/evaluationresult.h"
#include "core/stageresult.h"

#include <QString>

namespace kiln {

// The "## Profile" text of the agents strategy's profiler prompt: the hardware profile's metrics
// when there is one (Nsight Compute on the CUDA backend), and always the verifier's own data of
// the kernel (its timings, roofline fraction and the limiter it names). Without a profile the
// text says why, so the model knows what it is reading.
class ProfileReport
{
public:
    static QString text(const EvaluationResult &evaluation, const StageResult &profile);
    // The verifier's own data alone, one fact per line.
    static QString verifierData(const EvaluationResult &evaluation);
};

} // namespace kiln
