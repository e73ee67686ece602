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
    m_rerunDone = false;
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
    SandboxProcess::Reply reply;
    if (!poisonedCall(during, &reply))
        return false;
    // A shape's first call runs twice, under both poisons, on the same inputs: a result that
    // changes with them depends on memory the candidate never wrote.
    if (!m_rerunDone) {
        m_rerunDone = true;
        const QList<QByteArray> first = snapshots(shape);
        for (const auto &buffer : shape.placed.buffers)
            if (buffer.output)
                OutputChecker::fillSentinel(m_sandbox.buffer() + buffer.offset, buffer.bytes);
        if (!poisonedCall(during, &reply))
            return false;
        m_poisonDependence = poisonDependence(shape, first);
    }
    // More threads than after the first call is no evidence: OpenMP starts its pool at the
    // first parallel region and keeps it, idle. What counts is work after return: outputs that
    // change (judge) and CPU used while idle (the probe).
    m_maxThreads = qMax(m_maxThreads, reply.words.value(0).toInt());
    return true;
}

// The shape's call under the next poison: memory the candidate never wrote differs call by call.
bool CpuCorrectnessSession::poisonedCall(const QString &during, SandboxProcess::Reply *reply)
{
    const QByteArray poison =
        " poison:" + QByteArray::number(sandbox::kPoisonFills[m_calls++ % 2]);
    return request(QByteArray(m_call).insert(5, poison), during, reply);
}

// The outputs as the last call left them at return (its snapshots).
QList<QByteArray> CpuCorrectnessSession::snapshots(const CorrectnessLoop::Shape &shape) const
{
    QList<QByteArray> copies;
    qsizetype o = 0;
    for (const auto &buffer : shape.placed.buffers)
        if (buffer.output)
            copies.append(QByteArray(m_sandbox.buffer() + m_snapshots[o++], buffer.bytes));
    return copies;
}

// Where the last call's outputs differ beyond the tolerance from `first`, the same inputs'
// outputs under the other poison: what to say, or empty. Honest nondeterminism (a parallel
// sum's order) stays inside the tolerance; memory never written gives the poison's huge values.
QString CpuCorrectnessSession::poisonDependence(const CorrectnessLoop::Shape &shape,
                                                const QList<QByteArray> &first) const
{
    const QList<QByteArray> second = snapshots(shape);
    qsizetype o = 0;
    for (const auto &buffer : shape.placed.buffers) {
        if (!buffer.output)
            continue;
        const TaskParameter &parameter = m_task.parameters[buffer.parameter];
        if (second[o] == first[o]) {
            ++o;
            continue;
        }
        const CheckResult check =
            OutputChecker::compare(second[o].constData(), first[o].constData(), nullptr,
                                   buffer.bytes / 4, parameter.dtype,
                                   m_task.tolerance(parameter.dtype));
        ++o;
        // Elements left unwritten are output_unwritten's finding, not this one's.
        if (check.mismatches > check.unwritten)
            return QStringLiteral("%1 on %2: %3 of %4 elements differ between two calls on the "
                                  "same inputs under two fill patterns of fresh memory")
                .arg(parameter.name, shape.label)
                .arg(check.mismatches)
                .arg(check.elements);
    }
    return {};
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
    if (!m_poisonDependence.isEmpty())
        loop.flag(QStringLiteral("uninitialized_memory"), m_poisonDependence);
    m_poisonDependence.clear();
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
