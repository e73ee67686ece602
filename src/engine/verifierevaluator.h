#pragma once

#include "engine/evaluator.h"
#include "verifier/verifier.h"

#include <QSemaphore>
#include <algorithm>
#include <functional>

namespace kiln {

// The engine's Evaluator on top of the real verifier. One instance may serve several engines at
// once (the window's live runs): at most `sandboxes` CPU-backend candidates are judged at a time
// over all of them, each in its own kiln-sandbox process. CUDA candidates queue for the GPUs in
// the verifier's pool, so more of them are in flight (one a core, up to 16): the next ones
// compile (nvcc, on the CPU) while the current one runs on the GPU.
class VerifierEvaluator : public Evaluator
{
public:
    VerifierEvaluator(VerifierOptions options, int sandboxes);
    // The CPU sandboxes to use when the user did not say: a few, leaving a core for the rest.
    static int machineSandboxes();
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel) override;
    EvaluationResult confirm(const Task &task, Backend backend, const QString &source,
                             quint64 runSecret, const std::atomic<bool> &cancel) override;
    int concurrency() const override { return std::max(m_sandboxes, gpuInFlight()); }
    // A hardware profile on the CUDA backend (CandidateProfiler: the candidate once more under
    // Nsight Compute); elsewhere, or where ncu is missing or not permitted, the stage says why.
    StageResult profile(const Task &task, Backend backend, const QString &source, quint64 runSecret,
                        const std::atomic<bool> &cancel) override;
    ProfileRecord profileRecord(const Task &task, Backend backend, const QString &source,
                                quint64 runSecret, const QString &subject,
                                const QString &reportBase,
                                const std::atomic<bool> &cancel) override;
    static int gpuInFlight();
    Verifier &verifier() { return m_verifier; }
    // CPU sandboxes busy right now, over every engine this evaluator serves.
    int busySandboxes() const { return m_sandboxes - m_cpuSlots.available(); }

private:
    // Holds one of the CPU sandboxes while `judge` runs (GPU backends queue themselves).
    EvaluationResult withSandbox(Backend backend, const std::atomic<bool> &cancel,
                                 const std::function<EvaluationResult()> &judge);

    Verifier m_verifier;
    int m_sandboxes;
    QSemaphore m_cpuSlots;
};

} // namespace kiln
