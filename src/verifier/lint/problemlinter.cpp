#include "verifier/lint/problemlinter.h"

#include "verifier/lint/nativeproblemlinter.h"
#include "verifier/lint/torchproblemlinter.h"

#include <QFileInfo>

namespace kiln {

ProblemLinter::ProblemLinter(VerifierOptions options)
    : m_options(std::move(options)), m_compileCache(m_options.cacheDirectory),
      m_cache(LintCache::forOptions(m_options))
{
}

ProblemLinter::~ProblemLinter() = default;

QString ProblemLinter::torchUnavailable()
{
    if (!m_torch)
        m_torch = TorchEnvironment::probe(m_options);
    if (m_torch->usable)
        return {};
    return m_torch->torchVersion.isEmpty() ? QStringLiteral("no torch (%1)").arg(m_torch->reason)
                                           : m_torch->reason;
}

ProblemLint ProblemLinter::lint(const Task &task, bool force)
{
    if (!force)
        if (auto lint = m_cache.find(task))
            return *lint;
    ProblemLint lint = task.isKernelBench() ? lintTorch(task) : lintNative(task);
    if (!lint.linted())
        return lint;
    lint.taskHash = ProblemLint::hashOf(task);
    QString error;
    if (!m_cache.store(task, lint, &error))
        lint.note += QStringLiteral(" (not kept: %1)").arg(error);
    return lint;
}

ProblemLint ProblemLinter::lintNative(const Task &task)
{
    if (!QFileInfo(m_options.sandbox.executable).isExecutable())
        return ProblemLint::notLinted(
            QStringLiteral("kiln-sandbox not found (looked for \"%1\"; set KILN_SANDBOX)")
                .arg(m_options.sandbox.executable));
    LintFacts facts;
    QString error;
    if (!NativeProblemLinter(m_options, m_compileCache).lint(task, &facts, &error))
        return ProblemLint::failed(error);
    ProblemLint lint = ProblemLint::fromFacts(facts, task.tolerance(QStringLiteral("f32")));
    lint.note = QStringLiteral("the CPU reference, %1 input sets on each of %2 shapes")
                    .arg(facts.seeds)
                    .arg(task.correctnessShapes.size());
    return lint;
}

ProblemLint ProblemLinter::lintTorch(const Task &task)
{
    if (const QString why = torchUnavailable(); !why.isEmpty())
        return ProblemLint::notLinted(why);
    if (!m_torchLinter)
        m_torchLinter = std::make_unique<TorchProblemLinter>(m_options, *m_torch);
    LintFacts facts;
    QString error;
    if (!m_torchLinter->lint(task, &facts, &error))
        return ProblemLint::failed(error);
    ProblemLint lint = ProblemLint::fromFacts(facts, task.tolerance(QStringLiteral("f32")));
    lint.note = QStringLiteral("torch %1 on %2, %3 input sets")
                    .arg(m_torch->torchVersion, m_options.torchDevice)
                    .arg(facts.seeds);
    return lint;
}

} // namespace kiln
