#include "verifierevaluator.h"

#include <QThread>
#include <algorithm>

namespace kiln {

VerifierEvaluator::VerifierEvaluator(VerifierOptions options, int sandboxes)
    : m_verifier(std::move(options)), m_sandboxes(std::max(1, sandboxes)), m_cpuSlots(m_sandboxes)
{
}

int VerifierEvaluator::machineSandboxes()
{
    return std::max(1, std::min(4, QThread::idealThreadCount()));
}

int VerifierEvaluator::gpuInFlight()
{
    return std::max(1, std::min(16, QThread::idealThreadCount()));
}

EvaluationResult VerifierEvaluator::evaluate(const Task &task, Backend backend,
                                             const QString &source, quint64 runSecret,
                                             const std::atomic<bool> &cancel)
{
    if (backend != Backend::Cpu) // the GPU backends queue these themselves
        return m_verifier.evaluate(task, backend, source, runSecret, cancel);
    // Wait for a CPU sandbox, but give up promptly on cancel.
    while (!m_cpuSlots.tryAcquire(1, 50)) {
        if (cancel) {
            EvaluationResult cancelled; // never a verdict: the executor drops it
            cancelled.verdict = Verdict::Timeout;
            cancelled.summary = QStringLiteral("cancelled before a sandbox was free");
            return cancelled;
        }
    }
    const QSemaphoreReleaser release(m_cpuSlots);
    return m_verifier.evaluate(task, backend, source, runSecret, cancel);
}

} // namespace kiln
