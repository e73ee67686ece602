#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"
#include "tasks/task.h"

#include <atomic>

namespace kiln {

// What the engine needs from a verifier: judge one source. Implementations are thread-safe and
// may run up to concurrency() evaluations at once (one sandbox each).
class Evaluator
{
public:
    virtual ~Evaluator() = default;
    virtual EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                                      quint64 runSecret, const std::atomic<bool> &cancel) = 0;
    virtual int concurrency() const = 0;
};

} // namespace kiln
