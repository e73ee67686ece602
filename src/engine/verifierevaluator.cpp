#include "verifierevaluator.h"

#include <QFileInfo>
#include <QStandardPaths>
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
    return withSandbox(backend, cancel, [&] {
        return m_verifier.evaluate(task, backend, source, runSecret, cancel);
    });
}

EvaluationResult VerifierEvaluator::confirm(const Task &task, Backend backend,
                                            const QString &source, quint64 runSecret,
                                            const std::atomic<bool> &cancel)
{
    return withSandbox(backend, cancel, [&] {
        return m_verifier.confirm(task, backend, source, runSecret, cancel);
    });
}

EvaluationResult VerifierEvaluator::withSandbox(Backend backend, const std::atomic<bool> &cancel,
                                                const std::function<EvaluationResult()> &judge)
{
    if (backend != Backend::Cpu) // the GPU backends queue these themselves
        return judge();
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
    return judge();
}

QString VerifierEvaluator::nsightCompute()
{
    const QString configured = qEnvironmentVariable("KILN_NCU");
    if (!configured.isEmpty())
        return QFileInfo(configured).isExecutable() ? configured : QString();
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("ncu"));
    if (!onPath.isEmpty())
        return onPath;
    const QString toolkit = QStringLiteral("/usr/local/cuda/bin/ncu");
    return QFileInfo(toolkit).isExecutable() ? toolkit : QString();
}

StageResult VerifierEvaluator::profile(const Task &task, Backend backend, const QString &source,
                                       quint64 runSecret, const std::atomic<bool> &cancel)
{
    Q_UNUSED(task);
    Q_UNUSED(source);
    Q_UNUSED(runSecret);
    Q_UNUSED(cancel);
    if (backend != Backend::Cuda)
        return unprofiled(QStringLiteral("Kiln has no hardware profiler for the %1 backend")
                              .arg(backendName(backend)));
    const QString ncu = nsightCompute();
    if (ncu.isEmpty())
        return unprofiled(QStringLiteral("Nsight Compute (ncu) is missing (not on PATH, not in "
                                         "/usr/local/cuda/bin, no KILN_NCU)"));
    // The candidate runs confined: an empty environment (ncu's injection variables never reach
    // it) and seccomp without sockets (its injection reports to ncu over one). Lifting either for
    // model-written code would break the sandbox's rules (docs/cuda-backend.md, "Profiling the
    // verifier").
    StageResult stage = unprofiled(
        QStringLiteral("ncu (%1) is not permitted to attach to the confined candidate sandbox")
            .arg(ncu));
    stage.data.insert(QStringLiteral("ncu"), ncu);
    return stage;
}

} // namespace kiln
