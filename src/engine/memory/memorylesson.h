#pragma once

#include "core/backend.h"
#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/memoryentry.h"
#include "tasks/task.h"

#include <optional>

namespace kiln {

// Turns an improvement into a lesson of the optimisation memory: a correct child at least
// kMinimumGain times as fast as its correct parent, with speedup intervals that do not overlap
// (a gain inside the noise would teach every later prompt a fluke). The idea is the knobs that
// moved when both kernels name theirs (the offline policy's), else the first line of prose of the
// child's answer, else the size of the edit.
class MemoryLesson
{
public:
    static constexpr double kMinimumGain = 1.05;

    static std::optional<MemoryEntry> fromImprovement(const Task &task, Backend backend,
                                                      qint64 runId, const CandidateRecord &parent,
                                                      const EvaluationResult &parentResult,
                                                      const CandidateRecord &child,
                                                      const EvaluationResult &childResult);
    static QString idea(const CandidateRecord &parent, const CandidateRecord &child);
    // The label of the shape a task is timed on for a backend ("n=4194304").
    static QString timingShape(const Task &task, Backend backend);
};

} // namespace kiln
