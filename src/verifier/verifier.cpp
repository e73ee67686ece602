#include "verifier/verifier.h"

#include "verifier/cpu/cpuevaluation.h"
#include "verifier/cuda/cudaevaluation.h"
#include "verifier/harness/verdictrules.h"
#include "verifier/torch/torchevaluation.h"

#include <QFileInfo>

namespace kiln {

namespace {

// No evaluation at all: the combination cannot be judged (never a verdict on the candidate).
EvaluationResult refused(Backend backend, const QString &why)
{
    EvaluationResult result;
    result.backend = backend;
    result.summary = why;
    return result;
}

} // namespace

Verifier::Verifier(VerifierOptions options)
    : m_options(std::move(options)), m_cache(m_options.cacheDirectory),
      m_references(m_options, m_cache), m_baselines(m_options), m_torch(m_options),
      m_lints(LintCache::forOptions(m_options))
{
}

Verifier::~Verifier() = default;

QString Verifier::checkSetup() const
{
    const QFileInfo sandbox(m_options.sandbox.executable);
    if (m_options.sandbox.executable.isEmpty() || !sandbox.isExecutable())
        return QStringLiteral("kiln-sandbox not found (looked for \"%1\"; set KILN_SANDBOX)")
            .arg(m_options.sandbox.executable);
    return {};
}

CudaSandboxPool &Verifier::cudaPool()
{
    QMutexLocker lock(&m_cudaMutex);
    if (!m_cudaPool)
        m_cudaPool = std::make_unique<CudaSandboxPool>(m_options);
    return *m_cudaPool;
}

CudaAvailability Verifier::cudaAvailability()
{
    return cudaPool().availability();
}

const TorchEnvironment &Verifier::torchEnvironment()
{
    return m_torch.environment();
}

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret)
{
    const std::atomic<bool> never{false};
    return evaluate(task, backend, source, runSecret, never);
}

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret, const std::atomic<bool> &cancel)
{
    return judge(m_options, task, backend, source, runSecret, cancel);
}

EvaluationResult Verifier::confirm(const Task &task, Backend backend, const QString &source,
                                   quint64 runSecret, const std::atomic<bool> &cancel)
{
    VerifierOptions options = m_options;
    options.trialScale = VerifierOptions::kConfirmationScale;
    EvaluationResult result = judge(options, task, backend, source, runSecret, cancel);
    result.confirmed = result.verdict == Verdict::Pass && result.speedup.has_value();
    return result;
}

EvaluationResult Verifier::judge(const VerifierOptions &options, const Task &declared,
                                 Backend backend, const QString &source, quint64 runSecret,
                                 const std::atomic<bool> &cancel)
{
    // A problem whose outputs an all-zero or constant answer would meet is judged with the
    // magnitude-aware absolute tolerance its lint states (docs/tasks.md, "Problem lint").
    const Task task = m_lints.applied(declared);
    if (backend != Backend::Cpu && options.lenient)
        return refused(backend,
                       QStringLiteral("the lenient verifier runs on the CPU backend only"));
    if (task.isKernelBench() != (backend == Backend::Torch))
        return refused(backend,
                       task.isKernelBench()
                           ? QStringLiteral("%1 is a KernelBench problem: it runs on the "
                                            "pytorch backend only")
                                 .arg(task.name)
                           : QStringLiteral("the pytorch backend runs KernelBench problems "
                                            "only, and %1 is not one")
                                 .arg(task.name));
    if (backend == Backend::Torch) {
        TorchEvaluation evaluation(options, m_torch, task, source, runSecret, cancel);
        return evaluation.run();
    }
    if (backend == Backend::Cuda) {
        CudaEvaluation evaluation(options, m_cache, m_references, cudaPool(), task, source,
                                  runSecret, cancel);
        return evaluation.run();
    }
    CpuEvaluation evaluation(options, m_cache, m_references, m_baselines, task, source, runSecret,
                             cancel);
    return evaluation.run();
}

} // namespace kiln
