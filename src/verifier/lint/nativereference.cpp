#include "verifier/lint/nativereference.h"

#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/sandboxcompiler.h"

#include <cstring>

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
    const QString source = m_task.referenceSource.value(Backend::Cpu);
    if (source.isEmpty()) {
        *error = QStringLiteral("task %1 has no CPU reference").arg(m_task.name);
        return false;
    }
    m_work =
        std::make_unique<QTemporaryDir>(m_options.workRoot + QStringLiteral("/kiln-lint-XXXXXX"));
    m_sandbox = std::make_unique<SandboxProcess>(m_options.sandbox);
    if (!m_work->isValid() ||
        !m_sandbox->start(m_work->path(), 1 << 20, m_options.startTimeoutMs, error))
        return false;
    const auto compiled = SandboxCompiler::compile(*m_sandbox, m_cache, m_options, m_task.name,
                                                   source, EntryShim::source(m_task), nullptr);
    if (!compiled.artifact.ok) {
        *error = QStringLiteral("the reference of %1 does not compile: %2")
                     .arg(m_task.name, compiled.error.isEmpty() ? compiled.artifact.log.left(400)
                                                                : compiled.error);
        return false;
    }
    const SandboxProcess::Reply loaded =
        m_sandbox->request("load c " + QByteArray(EntryShim::kSymbol) + ' ' +
                               m_sandbox->stage(compiled.artifact.sharedObject).toLocal8Bit(),
                           m_options.startTimeoutMs);
    if (loaded.status != SandboxProcess::Status::Ok) {
        *error =
            QStringLiteral("cannot load the reference: %1").arg(QString::fromUtf8(loaded.line));
        return false;
    }
    return true;
}

bool NativeReference::run(const ShapeConfig &shape, const QList<QByteArray> &inputs,
                          QList<QByteArray> &outputs, QString *failure)
{
    BufferLayout layout;
    const PlacedBuffers placed = layout.place(m_task, shape);
    if (!m_sandbox->resizeBuffer(layout.size(), m_options.callTimeoutMs)) {
        *failure = QStringLiteral("cannot grow the shared buffer");
        return false;
    }
    for (const auto &buffer : placed.buffers) {
        if (buffer.output)
            OutputChecker::fillSentinel(m_sandbox->buffer() + buffer.offset, buffer.bytes);
        else
            std::memcpy(m_sandbox->buffer() + buffer.offset, inputs[buffer.parameter].constData(),
                        size_t(buffer.bytes));
    }
    for (const QByteArray &request :
         {"args 0 " + placed.argumentWords(m_task, shape), QByteArray("batch call:c:0")}) {
        const SandboxProcess::Reply reply = m_sandbox->request(request, m_options.batchTimeoutMs);
        if (reply.status != SandboxProcess::Status::Ok) {
            *failure = reply.status == SandboxProcess::Status::Error ? QString::fromUtf8(reply.line)
                                                                     : m_sandbox->describeEnd();
            return false;
        }
    }
    outputs = QList<QByteArray>(m_task.parameters.size());
    for (const auto &buffer : placed.buffers)
        if (buffer.output)
            outputs[buffer.parameter] =
                QByteArray(m_sandbox->buffer() + buffer.offset, buffer.bytes);
    return true;
}

} // namespace kiln
