#include "verifier.h"

#include "cpuevaluation.h"
#include "verdictrules.h"

#include <QFileInfo>

namespace kiln {

Verifier::Verifier(VerifierOptions options)
    : m_options(std::move(options)), m_cache(m_options.cacheDirectory),
      m_references(m_options, m_cache)
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

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret)
{
    const std::atomic<bool> never{false};
    return evaluate(task, backend, source, runSecret, never);
}

EvaluationResult Verifier::evaluate(const Task &task, Backend backend, const QString &source,
                                    quint64 runSecret, const std::atomic<bool> &cancel)
{
    if (backend != Backend::Cpu) {
        // The CUDA pipeline is a separate backend; without it nothing can run here.
        EvaluationResult result;
        result.backend = backend;
        result.verdict = Verdict::Crash;
        result.summary = QStringLiteral("the %1 backend is not available in this build")
                             .arg(backendName(backend));
        StageResult stage;
        stage.name = QStringLiteral("verdict");
        stage.detail = result.summary;
        result.stages.append(stage);
        return result;
    }
    CpuEvaluation evaluation(m_options, m_cache, m_references, task, source, runSecret, cancel);
    return evaluation.run();
}

} // namespace kiln
