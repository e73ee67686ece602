#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"
#include "tasks/task.h"
#include "verifier/cpu/baselinesandboxes.h"
#include "verifier/cuda/cudasandboxpool.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/lintcache.h"
#include "verifier/torch/torchbackend.h"

#include <QMutex>
#include <atomic>
#include <memory>

namespace kiln {

// The verification pipeline of verifier.md for one candidate: screen, compile, correctness,
// timing, verdict. The candidate runs in a kiln-sandbox process; statistics and the verdict are
// computed here. Thread-safe: several evaluations may run at once (see VerifierPool).
class Verifier
{
public:
    explicit Verifier(VerifierOptions options = VerifierOptions::defaults());
    ~Verifier();

    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel);
    // Convenience for callers without a cancel flag.
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret);

    // The judgement again with VerifierOptions::kConfirmationScale times the trials and timing
    // budget, against a freshly timed baseline: what a run's best must pass before it counts.
    EvaluationResult confirm(const Task &task, Backend backend, const QString &source,
                             quint64 runSecret, const std::atomic<bool> &cancel);

    const VerifierOptions &options() const { return m_options; }
    CompileCache &compileCache() { return m_cache; }
    // Empty when the sandbox executable can be run; otherwise why not.
    QString checkSetup() const;
    // Whether the CUDA backend can run here (GPUs, or why not); asks the GPU sandbox once.
    CudaAvailability cudaAvailability();
    // Whether the PyTorch backend can run here (python3, torch, a GPU torch sees); probed once.
    const TorchEnvironment &torchEnvironment();
    // Timing baselines kept between evaluations (reference code only), and stopping them.
    int idleBaselineSandboxes() { return m_baselines.kept(); }
    void releaseIdleSandboxes() { m_baselines.release(); }

private:
    CudaSandboxPool &cudaPool();
    EvaluationResult judge(const VerifierOptions &options, const Task &task, Backend backend,
                           const QString &source, quint64 runSecret,
                           const std::atomic<bool> &cancel);

    VerifierOptions m_options;
    CompileCache m_cache;
    ReferenceBank m_references;
    BaselineSandboxes m_baselines;
    QMutex m_cudaMutex;
    std::unique_ptr<CudaSandboxPool> m_cudaPool; // created on first use
    TorchBackend m_torch;
    // Problem lint's magnitude-aware tolerances, applied to every task judged here.
    LintCache m_lints;
};

} // namespace kiln
