#include "verifier.h"

#include "cpuevaluation.h"
#include "cudaevaluation.h"
#include "verdictrules.h"

#include <QFileInfo>

namespace kiln {

Verifier::Verifier(VerifierOptions options)
    : m_options(std::move(options)), m_cache(m_options.cacheDirectory),
      m_references(m_options, m_cache), m_baselines(m_options)
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

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret)
{
    const std::atomic<bool> never{false};
    return evaluate(task, backend, source, runSecret, never);
}

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret, const std::atomic<bool> &cancel)
{
    if (backend == Backend::Cuda && m_options.lenient) {
        EvaluationResult refused;
        refused.backend = Backend::Cuda;
        refused.summary = QStringLiteral("the lenient verifier runs on the CPU backend only");
        return refused;
    }
    if (backend == Backend::Cuda) {
        CudaEvaluation evaluation(m_options, m_cache, m_references, cudaPool(), task, source,
                                  runSecret, cancel);
        return evaluation.run();
    }
    CpuEvaluation evaluation(m_options, m_cache, m_references, m_baselines, task, source, runSecret,
                             cancel);
    return evaluation.run();
}

} // namespace kiln
