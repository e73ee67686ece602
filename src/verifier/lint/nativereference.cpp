#include "verifier/lint/nativereference.h"

#include "verifier/harness/referencerunner.h"

namespace kiln {

NativeReference::NativeReference(const VerifierOptions &options, CompileCache &cache,
                                 const Task &task)
    : m_options(options), m_cache(cache), m_task(task)
{
}

NativeReference::~NativeReference()
{
    if (m_sandbox && m_sandbox->running())
        m_sandbox->request("quit", 1000);
}

bool NativeReference::start(QString *error)
{
    m_work =
        std::make_unique<QTemporaryDir>(m_options.workRoot + QStringLiteral("/kiln-lint-XXXXXX"));
    m_sandbox = std::make_unique<SandboxProcess>(m_options.sandbox);
    if (!m_work->isValid() ||
        !m_sandbox->start(m_work->path(), 1 << 20, m_options.startTimeoutMs, error))
        return false;
    return !ReferenceRunner::load(*m_sandbox, m_cache, m_options, m_task, error).isEmpty();
}

bool NativeReference::run(const ShapeConfig &shape, const QList<QByteArray> &inputs,
                          QList<QByteArray> &outputs, QString *failure)
{
    return ReferenceRunner::run(*m_sandbox, m_options, m_task, shape, inputs, outputs, failure);
}

} // namespace kiln
