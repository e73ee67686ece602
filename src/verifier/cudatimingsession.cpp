#include "cudatimingsession.h"

#include "outputchecker.h"
#include "referencebank.h"
#include "sandbox/freshvalues.h"
#include "timedcheck.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cstring>

namespace kiln {

namespace {

constexpr int kCandidateArgs = 1000;
constexpr int kReferenceArgs = 2000;
constexpr int kLibraryArgs = 3000;
constexpr int kScaleArgs = 4000;

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

QByteArray region(qint64 offset, qint64 bytes)
{
    return number(offset) + ':' + number(bytes);
}

QList<PlacedBuffers::Buffer> outputsOf(const PlacedBuffers &placed)
{
    QList<PlacedBuffers::Buffer> out;
    for (const auto &buffer : placed.buffers)
        if (buffer.output)
            out.append(buffer);
    return out;
}

QList<CudaTimingSession::Call> callsOf(const SandboxProcess::Reply &reply)
{
    QList<CudaTimingSession::Call> calls;
    for (qsizetype i = 1; i < reply.words.size(); ++i)
        if (const auto call = CudaTimingSession::parseCall(reply.words[i]))
            calls.append(*call);
    return calls;
}

} // namespace

std::optional<CudaTimingSession::Call> CudaTimingSession::parseCall(const QByteArray &word)
{
    const QList<QByteArray> parts = word.split('/');
    if (parts.size() != 3)
        return std::nullopt;
    return Call{parts[0].toDouble() / 1e6, parts[1].toDouble() / 1e6, parts[2].toDouble() / 1e6};
}

CudaTimingSession::CudaTimingSession(const VerifierOptions &options, const Task &task,
                                     const ShapeConfig &shape, const FreshInputs &inputs,
                                     Processes processes, Send send, Arguments arguments,
                                     bool library, quint64 secret)
    : m_options(options), m_task(task), m_shape(shape),
      m_inputs(inputs), m_candidate{processes.candidate}, m_baseline{processes.baseline},
      m_send(std::move(send)), m_arguments(std::move(arguments)), m_library(library),
      m_secret(secret)
{
}

int CudaTimingSession::baselineCallsPerCall() const
{
    return 1 + (m_slots.first().scale ? 1 : 0) + (m_library ? 1 : 0);
}

// As many slots as the device memory the options allow holds, 2 to 4.
int CudaTimingSession::slotCount(qint64 perSlotBytes) const
{
    return int(std::clamp<qint64>(
        m_options.cudaTimingMemoryBytes / std::max<qint64>(1, perSlotBytes), 2, 4));
}

void CudaTimingSession::placeSlots()
{
    qint64 inputBytes = 0, outputBytes = 0;
    for (const TaskParameter &parameter : m_task.parameters) {
        const qint64 bytes = 4 * m_task.elementCount(parameter, m_shape);
        if (parameter.role == TaskParameter::Role::Input)
            inputBytes += bytes;
        else if (parameter.role == TaskParameter::Role::Output)
            outputBytes += bytes;
    }
    const bool scaled = ReferenceBank::needsScale(m_task);
    const qint64 perSlot =
        (inputBytes + outputBytes) * (scaled ? 3 : 2) + (m_library ? outputBytes : 0);
    m_slots = QList<Slot>(slotCount(perSlot));
    for (Slot &slot : m_slots) {
        slot.call = m_candidate.layout.place(m_task, m_shape);
        slot.reference = m_baseline.layout.place(m_task, m_shape);
        slot.library = slot.reference;
        if (m_library)
            for (auto &buffer : slot.library.buffers)
                if (buffer.output)
                    buffer.offset = m_baseline.layout.reserve(buffer.bytes);
        if (scaled)
            slot.scale = m_baseline.layout.place(m_task, m_shape);
    }
}

// Room in the process, its guard bands and its copy of the tables, uploaded once.
bool CudaTimingSession::prepareSide(Side &side, bool baseline)
{
    if (!side.box.resizeBuffer(side.layout.size(), m_options.cudaCallTimeoutMs)) {
        m_harnessFailure =
            QStringLiteral("cannot grow the shared buffer to %1 MiB").arg(side.layout.size() >> 20);
        return false;
    }
    char *base = side.box.buffer();
    QByteArray upload = "batch";
    for (const auto &[offset, bytes] : side.layout.guards()) {
        OutputChecker::fillGuard(base + offset, bytes);
        upload += " h2d:" + region(offset, bytes);
    }
    for (int p = 0; p < side.tables.size(); ++p)
        for (int d = 0; d < side.tables[p].size(); ++d) {
            const QByteArray &table = m_inputs.table(p, d);
            std::memcpy(base + side.tables[p][d], table.constData(), size_t(table.size()));
            upload += " h2d:" + region(side.tables[p][d], table.size());
        }
    const int transferMs = m_options.cudaCallTimeoutMs + int(side.layout.size() >> 20);
    return m_send(baseline, "alloc " + number(side.layout.size()), transferMs,
                  QStringLiteral("timing allocation"), nullptr) &&
           m_send(baseline, upload, transferMs, QStringLiteral("timing upload"), nullptr);
}

bool CudaTimingSession::sendArguments()
{
    for (int s = 0; s < m_slots.size(); ++s) {
        const Slot &slot = m_slots[s];
        const QByteArray mine = m_arguments(kCandidateArgs + s, slot.call, true, &m_wrongDetail);
        if (mine.isEmpty())
            return false;
        QByteArray theirs = "args " + number(kReferenceArgs + s) + ' ' +
                            slot.reference.argumentWords(m_task, m_shape);
        if (m_library)
            theirs += "\nargs " + number(kLibraryArgs + s) + ' ' +
                      slot.library.argumentWords(m_task, m_shape);
        if (slot.scale)
            theirs += "\nargs " + number(kScaleArgs + s) + ' ' +
                      slot.scale->argumentWords(m_task, m_shape);
        for (const bool baseline : {false, true})
            for (const QByteArray &line : (baseline ? theirs : mine).split('\n'))
                if (!m_send(baseline, line, m_options.cudaCallTimeoutMs,
                            QStringLiteral("timing setup"), nullptr))
                    return false;
    }
    return true;
}

// Timer overhead: events around nothing, in the same state as calls.
bool CudaTimingSession::calibrate(Side &side, bool baseline)
{
    QByteArray nops = "batch";
    for (int i = 0; i < 21; ++i)
        nops += " flush nop";
    SandboxProcess::Reply reply;
    if (!m_send(baseline, nops, m_options.cudaCallTimeoutMs, QStringLiteral("timer calibration"),
                &reply))
        return false;
    QList<double> events, gaps;
    for (const Call &call : callsOf(reply)) {
        events.append(call.eventMs);
        gaps.append(call.wallMs - call.eventMs);
    }
    side.overheadMs = TimingStats::medianOf(events);
    side.gapMs = TimingStats::medianOf(gaps);
    return true;
}

bool CudaTimingSession::setUp()
{
    QElapsedTimer timer;
    timer.start();
    for (Side *side : {&m_candidate, &m_baseline}) {
        side->tables = QList<QList<qint64>>(m_task.parameters.size());
        const qint64 tableBytes = qint64(4) << fresh::kTableBits;
        for (int p = 0; p < m_task.parameters.size(); ++p)
            if (m_task.parameters[p].role == TaskParameter::Role::Input)
                for (int d = 0; d < m_inputs.distributionCount(); ++d)
                    side->tables[p].append(side->layout.reserve(tableBytes));
    }
    placeSlots();
    const bool ready = prepareSide(m_candidate, false) && prepareSide(m_baseline, true) &&
                       sendArguments() && calibrate(m_candidate, false) &&
                       calibrate(m_baseline, true);
    m_overheadMs = m_candidate.overheadMs;
    m_setupMs = timer.nsecsElapsed() / 1e6;
    return ready;
}

QList<QPair<qint64, qint64>> CudaTimingSession::windows(qint64 bytes, bool full, int call) const
{
    return TimedCheck::windows(m_secret, bytes, full, call);
}

QPair<qint64, qint64> CudaTimingSession::inputWindow(qint64 bytes, int call) const
{
    return windows(bytes, false, call + 1).first();
}

void CudaTimingSession::readBack(const PlacedBuffers &placed, bool full, int call,
                                 QByteArray &ops) const
{
    for (const auto &buffer : outputsOf(placed))
        for (const auto &[start, bytes] : windows(buffer.bytes, full, call))
            ops += " d2h:" + region(buffer.offset + start, bytes);
}

// The call's fresh inputs drawn on the device, and the outputs cleared.
void CudaTimingSession::drawInputs(const Side &side, const PlacedBuffers &placed, int call,
                                   QByteArray &ops) const
{
    for (const auto &buffer : placed.buffers) {
        if (buffer.output) {
            ops += " fill:" + region(buffer.offset, buffer.bytes);
            continue;
        }
        const QList<qint64> &tables = side.tables[buffer.parameter];
        ops += " fresh:" + region(buffer.offset, buffer.bytes) + ':' +
               number(tables[call % tables.size()]) + ':' + number(fresh::kTableBits) + ':' +
               QByteArray::number(m_inputs.key(buffer.parameter, call));
    }
}

void CudaTimingSession::candidateOps(int call, bool full, QByteArray &ops) const
{
    const Slot &slot = slotOf(call);
    drawInputs(m_candidate, slot.call, call, ops);
    ops += " flush call:c:" + number(kCandidateArgs + call % m_slots.size());
    readBack(slot.call, full, call, ops);
    // A window of every input, to check against the host's own draw (the correctness stage
    // compared whole inputs already; drawing hundreds of MiB on the host would cost seconds).
    for (const auto &buffer : slot.call.buffers)
        if (!buffer.output) {
            const auto window = inputWindow(buffer.bytes, call);
            ops += " d2h:" + region(buffer.offset + window.first, window.second);
        }
}

void CudaTimingSession::baselineOps(int call, bool full, QByteArray &ops) const
{
    const int s = int(call % m_slots.size());
    const Slot &slot = m_slots[s];
    drawInputs(m_baseline, slot.reference, call, ops);
    if (m_library)
        for (const auto &buffer : outputsOf(slot.library))
            ops += " fill:" + region(buffer.offset, buffer.bytes);
    if (slot.scale) {
        // The reference on |inputs|, untimed, for the scaled term of the tolerance.
        for (qsizetype b = 0; b < slot.reference.buffers.size(); ++b) {
            const auto &source = slot.reference.buffers[b];
            const auto &target = slot.scale->buffers[b];
            if (target.output)
                ops += " fill:" + region(target.offset, target.bytes);
            else
                ops +=
                    " abs:" + region(source.offset, target.offset) + ':' + number(source.bytes) +
                    ':' +
                    (m_task.parameters[source.parameter].dtype == QLatin1String("i32") ? 'i' : 'f');
        }
        ops += " call:r:" + number(kScaleArgs + s);
        readBack(*slot.scale, full, call, ops);
    }
    ops += " flush call:r:" + number(kReferenceArgs + s);
    readBack(slot.reference, full, call, ops);
    if (m_library)
        ops += " flush call:b:" + number(kLibraryArgs + s);
}

// Calls first .. first+count-1 in both processes, the first side by TimingLoop's order.
bool CudaTimingSession::run(int first, int count, bool finalCall, QList<Call> &candidate,
                            QList<Call> &baseline)
{
    QByteArray mine = "batch", theirs = "batch";
    for (int j = first; j < first + count; ++j) {
        const bool full = finalCall || j < kFullCalls;
        candidateOps(j, full, mine);
        baselineOps(j, full, theirs);
    }
    if (finalCall)
        for (const auto &[offset, bytes] : m_candidate.layout.guards())
            mine += " d2h:" + region(offset, bytes);
    const int timeoutMs = m_options.cudaCallTimeoutMs * (finalCall ? 2 : 1) + count * 2000;
    const QString during = finalCall ? QStringLiteral("the final check") : QStringLiteral("timing");
    const QString baselineDuring =
        finalCall ? QStringLiteral("the final check") : QStringLiteral("the baseline's timing");
    SandboxProcess::Reply mineReply, theirsReply;
    for (const bool candidateTurn :
         {TimingLoop::candidateFirst(first), !TimingLoop::candidateFirst(first)}) {
        if (candidateTurn ? !m_send(false, mine, timeoutMs, during, &mineReply)
                          : !m_send(true, theirs, timeoutMs, baselineDuring, &theirsReply))
            return false;
    }
    candidate = callsOf(mineReply);
    baseline = callsOf(theirsReply);
    if (candidate.size() != count || baseline.size() != count * baselineCallsPerCall()) {
        m_harnessFailure = QStringLiteral("malformed timing reply");
        return false;
    }
    return true;
}

bool CudaTimingSession::inputsIntact(int call)
{
    const Slot &slot = slotOf(call);
    for (const auto &buffer : slot.call.buffers) {
        if (buffer.output)
            continue;
        const auto window = inputWindow(buffer.bytes, call);
        QByteArray expected(window.second, Qt::Uninitialized);
        m_inputs.draw(buffer.parameter, call, expected.data(), window.second / 4, window.first / 4);
        if (std::memcmp(m_candidate.box.buffer() + buffer.offset + window.first,
                        expected.constData(), size_t(window.second)) != 0) {
            m_flags.append(
                {QStringLiteral("input_modified"), QStringLiteral("timed call %1").arg(call)});
            m_wrongDetail = QStringLiteral("modified an input during timed call %1").arg(call);
            return false;
        }
    }
    return true;
}

bool CudaTimingSession::judge(int call, bool full)
{
    const Slot &slot = slotOf(call);
    const Slot &before = slotOf(call + int(m_slots.size()) - 1);
    const char *mine = m_candidate.box.buffer();
    const char *theirs = m_baseline.box.buffer();
    // The previous call's answer is at hand only where both were read back in full.
    const bool previousKnown = full && call > 0 && call - 1 < kFullCalls;
    QList<TimedOutput> outputs;
    for (qsizetype b = 0; b < slot.call.buffers.size(); ++b) {
        const auto &buffer = slot.call.buffers[b];
        if (!buffer.output)
            continue;
        TimedOutput out;
        out.parameter = buffer.parameter;
        out.atReturn = mine + buffer.offset;
        out.expected = theirs + slot.reference.buffers[b].offset;
        out.scale = slot.scale ? theirs + slot.scale->buffers[b].offset : nullptr;
        out.previous = previousKnown ? theirs + before.reference.buffers[b].offset : nullptr;
        out.windows = windows(buffer.bytes, full, call);
        out.bytes = buffer.bytes;
        outputs.append(out);
    }
    const TimedCheck::Outcome outcome =
        TimedCheck::judge(m_task, outputs, call, m_inputs.distribution(call));
    m_flags += outcome.flags;
    if (!outcome.ok)
        m_wrongDetail = outcome.detail;
    return outcome.ok && inputsIntact(call);
}

bool CudaTimingSession::time(int first, int count, QList<Sample> &samples)
{
    QElapsedTimer part;
    part.start();
    QList<Call> mine, theirs;
    if (!run(first, count, false, mine, theirs))
        return false;
    m_batchMs += part.restart() / 1.0;
    const int perCall = baselineCallsPerCall();
    const int at = m_slots.first().scale ? 1 : 0; // the scale's call comes first
    for (int k = 0; k < count; ++k) {
        const int j = first + k;
        if (!judge(j, j < kFullCalls))
            return false;
        Sample sample;
        sample.candidateMs = std::max(0.0, mine[k].eventMs - m_candidate.overheadMs);
        sample.baselineMs = std::max(0.0, theirs[perCall * k + at].eventMs - m_baseline.overheadMs);
        if (m_library)
            sample.libraryMs =
                std::max(0.0, theirs[perCall * k + at + 1].eventMs - m_baseline.overheadMs);
        samples.append(sample);
        m_tails.append(mine[k].tailMs);
        m_gaps.append(mine[k].wallMs - mine[k].eventMs - m_candidate.gapMs);
    }
    m_checkMs += part.nsecsElapsed() / 1e6;
    return true;
}

bool CudaTimingSession::finalCheck(int call)
{
    QList<Call> mine, theirs;
    if (!run(call, 1, true, mine, theirs))
        return false;
    if (!judge(call, true)) {
        m_wrongDetail = QStringLiteral("after timing: ") + m_wrongDetail;
        return false;
    }
    if (!OutputChecker::guardsIntact(m_candidate.box.buffer(), m_candidate.layout.guards())) {
        m_flags.append({QStringLiteral("guard_band_overwrite"), QStringLiteral("timing")});
        m_wrongDetail = QStringLiteral("wrote outside its buffers during timing");
        return false;
    }
    return true;
}

QJsonObject CudaTimingSession::phases() const
{
    return {{QStringLiteral("upload_ms"), m_setupMs},
            {QStringLiteral("batch_ms"), m_batchMs},
            {QStringLiteral("check_ms"), m_checkMs},
            {QStringLiteral("slots"), int(m_slots.size())},
            {QStringLiteral("baseline_process"), QStringLiteral("separate")},
            {QStringLiteral("baseline_timer_overhead_ms"), m_baseline.overheadMs}};
}

} // namespace kiln
