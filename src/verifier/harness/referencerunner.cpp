#include "verifier/harness/referencerunner.h"

#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/sandboxcompiler.h"

#include <cstring>

namespace kiln {

QString ReferenceRunner::load(SandboxProcess &sandbox, CompileCache &cache,
                              const VerifierOptions &options, const Task &task, QString *error)
{
    const QString source = task.referenceSource.value(Backend::Cpu);
    if (source.isEmpty()) {
        *error = QStringLiteral("task %1 has no CPU reference").arg(task.name);
        return {};
    }
    const auto compiled = SandboxCompiler::compile(sandbox, cache, options, task.name, source,
                                                   EntryShim::source(task), nullptr);
    if (!compiled.artifact.ok) {
        *error = QStringLiteral("the reference of %1 does not compile: %2")
                     .arg(task.name, compiled.error.isEmpty() ? compiled.artifact.log.left(400)
                                                              : compiled.error);
        return {};
    }
    const SandboxProcess::Reply loaded =
        sandbox.request("load c " + QByteArray(EntryShim::kSymbol) + ' ' +
                            sandbox.stage(compiled.artifact.sharedObject).toLocal8Bit(),
                        options.startTimeoutMs);
    if (loaded.status != SandboxProcess::Status::Ok) {
        *error =
            QStringLiteral("cannot load the reference: %1").arg(QString::fromUtf8(loaded.line));
        return {};
    }
    return compiled.artifact.sharedObject;
}

bool ReferenceRunner::run(SandboxProcess &sandbox, const VerifierOptions &options, const Task &task,
                          const ShapeConfig &shape, const QList<QByteArray> &inputs,
                          QList<QByteArray> &outputs, QString *failure)
{
    BufferLayout layout;
    const PlacedBuffers placed = layout.place(task, shape);
    if (!sandbox.resizeBuffer(layout.size(), options.callTimeoutMs)) {
        *failure = QStringLiteral("cannot grow the shared buffer");
        return false;
    }
    for (const auto &buffer : placed.buffers) {
        if (!buffer.output)
            std::memcpy(sandbox.buffer() + buffer.offset, inputs[buffer.parameter].constData(),
                        size_t(buffer.bytes));
        else
            OutputChecker::fillSentinel(sandbox.buffer() + buffer.offset, buffer.bytes);
    }
    for (const QByteArray &request :
         {"args 0 " + placed.argumentWords(task, shape), QByteArray("batch call:c:0")}) {
        const SandboxProcess::Reply reply = sandbox.request(request, options.batchTimeoutMs);
        if (reply.status != SandboxProcess::Status::Ok) {
            *failure = reply.status == SandboxProcess::Status::Error ? QString::fromUtf8(reply.line)
                                                                     : sandbox.describeEnd();
            return false;
        }
    }
    outputs = QList<QByteArray>(task.parameters.size());
    for (const auto &buffer : placed.buffers) {
        if (buffer.output)
            outputs[buffer.parameter] = QByteArray(sandbox.buffer() + buffer.offset, buffer.bytes);
    }
    return true;
}

} // namespace kiln
