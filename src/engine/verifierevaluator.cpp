#include "verifierevaluator.h"

#include <algorithm>

namespace kiln {

VerifierEvaluator::VerifierEvaluator(VerifierOptions options, int sandboxes)
    : m_verifier(std::move(options)), m_sandboxes(std::max(1, sandboxes))
{
}

EvaluationResult VerifierEvaluator::evaluate(const Task &task, Backend backend,
                                             const QString &source, quint64 runSecret,
                                             const std::atomic<bool> &cancel)
{
    return m_verifier.evaluate(task, backend, source, runSecret, cancel);
}

} // namespace kiln
