#include "verifierevaluator.h"

#include "engine/profile/candidateprofiler.h"

#include <QTemporaryDir>
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

StageResult VerifierEvaluator::profile(const Task &task, Backend backend, const QString &source,
                                       quint64 runSecret, const std::atomic<bool> &cancel)
{
    if (const QString why = CandidateProfiler::unavailable(backend); !why.isEmpty())
        return unprofiled(why);
    // The report itself is not kept here: the stage carries its metrics.
    const QTemporaryDir folder(m_verifier.options().workRoot + QStringLiteral("/kiln-ncu-XXXXXX"));
    const ProfileRecord record =
        profileRecord(task, backend, source, runSecret, QStringLiteral("candidate"),
                      folder.filePath(QStringLiteral("profile")), cancel);
    if (!record.ok)
        return unprofiled(record.reason);
    StageResult stage = record.asStage(QStringLiteral("profile"));
    stage.data.insert(QStringLiteral("fingerprint"), record.fingerprint);
    return stage;
}

ProfileRecord VerifierEvaluator::profileRecord(const Task &task, Backend backend,
                                               const QString &source, quint64 runSecret,
                                               const QString &subject, const QString &reportBase,
                                               const std::atomic<bool> &cancel)
{
    return CandidateProfiler(m_verifier.options())
        .profile(task, backend, source, runSecret, subject, reportBase, cancel);
}

} // namespace kiln
