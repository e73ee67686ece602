#pragma once

#include "core/candidaterecord.h"

#include <QString>

namespace kiln {

// The HTML of the transcript panel: who produced a candidate (policy, model, simulated or not)
// and the prompt, reasoning and response with their token counts.
class TranscriptFormatter
{
public:
    static QString html(const CandidateRecord &candidate);
};

} // namespace kiln
