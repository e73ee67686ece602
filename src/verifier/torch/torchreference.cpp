#include "verifier/torch/torchreference.h"

#include <QRandomGenerator>

namespace kiln {

TorchReference::TorchReference(const VerifierOptions &options, const TorchEnvironment &environment,
                               const Task &task)
    : m_options(options), m_environment(environment), m_taskName(task.name),
      m_source(task.referenceSource.value(Backend::Torch))
{
    // A fresh seed per process: the candidate is told it only when its module is built.
    m_initSeed = QRandomGenerator::system()->generate() & 0x7fffffffu;
}

bool TorchReference::running()
{
    return m_process && m_process->process().running();
}

bool TorchReference::ensureReady(QString *error)
{
    if (m_loaded && running())
        return true;
    m_loaded = false;
    m_compileState = 0;
    m_opRecord.reset(); // asked again of the new process
    m_process = std::make_unique<TorchProcess>(m_options, m_environment,
                                               TorchProcess::Role::Reference, QString());
    if (!m_process->start(QString(), 64 << 20, error))
        return false;
    const QString path = m_process->writeModule(QStringLiteral("reference.py"), m_source);
    if (path.isEmpty()) {
        *error =
            QStringLiteral("cannot write reference.py in %1").arg(m_process->process().workDir());
        return false;
    }
    const SandboxProcess::Reply reply =
        m_process->request("load " + path.toUtf8() + ' ' + QByteArray::number(m_initSeed),
                           m_options.torchCallTimeoutMs);
    if (reply.status != SandboxProcess::Status::Ok) {
        *error = QStringLiteral("the problem's Model could not be built: %1 %2")
                     .arg(QString::fromUtf8(reply.line),
                          QString::fromUtf8(m_process->process().stderrTail().right(600)));
        return false;
    }
    m_initInputs = reply.words.value(1);
    m_loaded = true;
    return true;
}

bool TorchReference::ensureCompiled(QString *note)
{
    if (m_compileState == 0) {
        const SandboxProcess::Reply reply =
            m_process->request("compile", m_options.torchBuildTimeoutMs);
        const bool ok =
            reply.status == SandboxProcess::Status::Ok && reply.words.value(0) != "unavailable";
        m_compileState = ok ? 1 : -1;
        m_compileNote =
            ok ? QStringLiteral("torch.compile built in %1 ms")
                     .arg(QString::fromUtf8(reply.words.value(0)))
               : QStringLiteral("torch.compile unavailable: %1").arg(QString::fromUtf8(reply.line));
    }
    *note = m_compileNote;
    return m_compileState == 1;
}

} // namespace kiln
