#include "verifier/cpu/cpucorrectnesssession.h"

#include "sandbox/protocol.h"

#include "verifier/harness/outputchecker.h"

#include <cstring>

namespace kiln {

namespace {

constexpr double kBusyThreadNs = 2e6; // CPU used by other threads during the probe window

} // namespace

CpuCorrectnessSession::CpuCorrectnessSession(SandboxProcess &sandbox,
                                             const VerifierOptions &options, const Task &task,
                                             const std::atomic<bool> &cancel,
                                             RequestFailed requestFailed)
    : m_sandbox(sandbox), m_options(options), m_task(task), m_cancel(cancel),
      m_requestFailed(std::move(requestFailed))
{
}

bool CpuCorrectnessSession::request(const QByteArray &line, const QString &during,
                                    SandboxProcess::Reply *reply)
{
    const SandboxProcess::Reply answer =
        m_sandbox.request(line, m_options.callTimeoutMs, &m_cancel);
    if (reply)
        *reply = answer;
    if (answer.status == SandboxProcess::Status::Ok)
        return true;
    m_requestFailed(answer, during);
    return false;
}

CorrectnessSession::SetUp CpuCorrectnessSession::setUp(CorrectnessLoop &loop,
                                                       CorrectnessLoop::Shape &shape)
{
    // Each output is copied aside the moment the call returns: that copy is what is judged,
    // and the output must not change after it.
    m_snapshots.clear();
    m_call = "batch call:c:0";
    for (const auto &buffer : shape.placed.buffers)
        if (buffer.output) {
            m_snapshots.append(shape.layout.reserve(buffer.bytes));
            m_call += " snap:" + QByteArray::number(buffer.offset) + ':' +
                      QByteArray::number(m_snapshots.last()) + ':' +
                      QByteArray::number(buffer.bytes);
        }
    if (!loop.growBuffer(m_sandbox, shape.layout.size(), m_options.callTimeoutMs))
        return SetUp::Failed;
    CorrectnessLoop::fillGuards(m_sandbox.buffer(), shape.layout);
    if (!request("args 0 " + shape.placed.argumentWords(m_task, shape.config),
                 QStringLiteral("setup"), nullptr))
        return SetUp::Failed;
    return SetUp::Ready;
}

bool CpuCorrectnessSession::call(const CorrectnessLoop::Shape &shape,
                                 const ReferenceInstance &instance, const QString &during)
{
    for (const auto &buffer : shape.placed.buffers) {
        char *at = m_sandbox.buffer() + buffer.offset;
        if (buffer.output) {
            OutputChecker::fillSentinel(at, buffer.bytes);
        } else {
            const QByteArray &values = instance.inputs[buffer.parameter];
            std::memcpy(at, values.constData(), size_t(values.size()));
        }
    }
    // Each call under the other poison: memory the candidate never wrote differs call by call.
    const QByteArray poison = " poison:" + QByteArray::number(sandbox::kPoisonFills[m_calls++ % 2]);
    SandboxProcess::Reply reply;
    if (!request(QByteArray(m_call).insert(5, poison), during, &reply))
        return false;
    // More threads than after the first call is no evidence: OpenMP starts its pool at the
    // first parallel region and keeps it, idle. What counts is work after return: outputs that
    // change (judge) and CPU used while idle (the probe).
    m_maxThreads = qMax(m_maxThreads, reply.words.value(0).toInt());
    return true;
}

// The inputs first (one finding for all of them), then each output as it was at return, which
// must not have changed since.
void CpuCorrectnessSession::judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call)
{
    const QList<PlacedBuffers::Buffer> &buffers = call.shape.placed.buffers;
    for (const auto &buffer : buffers)
        if (!buffer.output && !loop.checkInput(call, buffer))
            break;
    qsizetype o = 0;
    for (const auto &buffer : buffers) {
        if (!buffer.output)
            continue;
        const char *atReturn = call.memory + m_snapshots[o++];
        if (std::memcmp(atReturn, call.memory + buffer.offset, size_t(buffer.bytes)) != 0) {
            const QString &name = m_task.parameters[buffer.parameter].name;
            loop.flag(QStringLiteral("threads_left_running"),
                      QStringLiteral("%1 changed after the call on %2 returned")
                          .arg(name, call.shape.label));
            loop.fail(QStringLiteral("went on writing %1 after it returned, on %2")
                          .arg(name, call.shape.label),
                      call.where);
        }
        loop.judgeOutput(call, buffer, atReturn);
    }
}

// Threads still burning CPU after the calls returned (work hidden from the timer).
bool CpuCorrectnessSession::finishShape(CorrectnessLoop &loop)
{
    SandboxProcess::Reply reply;
    if (!request("probe 3", QStringLiteral("the thread probe"), &reply))
        return false;
    if (reply.words.value(1).toDouble() > kBusyThreadNs)
        loop.flag(QStringLiteral("threads_left_running"),
                  QStringLiteral("%1 ms of CPU used after return")
                      .arg(reply.words.value(1).toDouble() / 1e6, 0, 'f', 1));
    return true;
}

// threads_left_running blocks the candidate: further calls would not change the verdict.
bool CpuCorrectnessSession::halted(const CorrectnessLoop &loop) const
{
    return loop.hasFlag(QStringLiteral("threads_left_running"));
}

void CpuCorrectnessSession::conclude(CorrectnessLoop &, QJsonObject &data)
{
    data.insert(QStringLiteral("max_threads"), m_maxThreads);
}

} // namespace kiln
