#include "verifier/cuda/cudacorrectnesssession.h"

#include "core/timingstats.h"
#include "verifier/cuda/cudatimingsession.h"

#include <cstring>

namespace kiln {

namespace {

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

} // namespace

CudaCorrectnessSession::CudaCorrectnessSession(SandboxProcess &box, const VerifierOptions &options,
                                               Send send, Arguments arguments)
    : m_box(box), m_options(options), m_send(std::move(send)), m_arguments(std::move(arguments))
{
}

CorrectnessSession::SetUp CudaCorrectnessSession::setUp(CorrectnessLoop &loop,
                                                        CorrectnessLoop::Shape &shape)
{
    const qint64 size = shape.layout.size();
    const int timeoutMs = m_options.cudaCallTimeoutMs;
    if (!loop.growBuffer(m_box, size, timeoutMs))
        return SetUp::Failed;
    std::memset(m_box.buffer(), 0, size_t(size));
    CorrectnessLoop::fillGuards(m_box.buffer(), shape.layout);
    QString geometryError;
    const QByteArray setup = m_arguments(shape.placed, shape.config, &geometryError);
    if (setup.isEmpty()) {
        loop.fail(QStringLiteral("%1 on %2").arg(geometryError, shape.label), {});
        return SetUp::Skipped;
    }
    if (!m_send("alloc " + number(size), timeoutMs, QStringLiteral("allocation"), nullptr) ||
        !m_send("batch h2d:0:" + number(size), timeoutMs, QStringLiteral("upload"), nullptr))
        return SetUp::Failed;
    bool ok = true;
    for (const QByteArray &line : setup.split('\n'))
        ok = ok && m_send(line, timeoutMs, QStringLiteral("setup"), nullptr);
    return ok ? SetUp::Ready : SetUp::Failed;
}

bool CudaCorrectnessSession::call(const CorrectnessLoop::Shape &shape,
                                  const ReferenceInstance &instance, const QString &during)
{
    QByteArray ops = "batch";
    QByteArray readBack;
    for (const auto &buffer : shape.placed.buffers) {
        const QByteArray region = number(buffer.offset) + ':' + number(buffer.bytes);
        if (buffer.output) {
            ops += " fill:" + region;
        } else {
            const QByteArray &values = instance.inputs[buffer.parameter];
            std::memcpy(m_box.buffer() + buffer.offset, values.constData(), size_t(values.size()));
            ops += " h2d:" + region;
        }
        readBack += " d2h:" + region;
    }
    for (const auto &[offset, bytes] : shape.layout.guards())
        readBack += " d2h:" + number(offset) + ':' + number(bytes);
    SandboxProcess::Reply reply;
    if (!m_send(ops + " call:c:0" + readBack, m_options.cudaCallTimeoutMs, during, &reply))
        return false;
    if (const auto call = CudaTimingSession::parseCall(reply.words.value(1)))
        m_tails.append(call->tailMs);
    return true;
}

// Every buffer in signature order: an input must hold what was uploaded, an output the
// reference's answer.
void CudaCorrectnessSession::judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call)
{
    for (const auto &buffer : call.shape.placed.buffers) {
        if (buffer.output)
            loop.judgeOutput(call, buffer, call.memory + buffer.offset);
        else
            loop.checkInput(call, buffer);
    }
}

// Work still running on the device after the harness stream finished (another stream).
void CudaCorrectnessSession::conclude(CorrectnessLoop &loop, QJsonObject &data)
{
    const double tail = TimingStats::medianOf(m_tails);
    if (!loop.failed() && tail > kSideStreamTailMs)
        loop.flag(QStringLiteral("side_stream_work"),
                  QStringLiteral("device busy %1 ms after the timed stream finished")
                      .arg(tail, 0, 'f', 3));
    data.insert(QStringLiteral("median_tail_ms"), tail);
}

} // namespace kiln
