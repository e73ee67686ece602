#pragma once

#include "policies/policy.h"

#include <QJsonObject>
#include <QString>

namespace kiln {

// A model's or an agent's answer taken into the result: the kernel source it holds, or a role's
// prose (the agents strategy's profiler, planner and tester). Shared by every policy that asks
// something that answers in text.
class CandidateAnswer
{
public:
    // The prose of a role's answer; a failure when it is empty.
    static void takeRoleAnswer(const GenerationRequest &request, const QString &answer,
                               GenerationResult &result, QJsonObject &meta);
    // The kernel source extracted from the answer (a Python module for KernelBench); a
    // failure when it holds none. truncated: the answer hit its token limit (said in the error).
    static void takeSource(const GenerationRequest &request, const QString &answer, bool truncated,
                           GenerationResult &result, QJsonObject &meta);
};

} // namespace kiln
