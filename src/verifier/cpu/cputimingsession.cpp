#include "verifier/cpu/cputimingsession.h"

#include "sandbox/protocol.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/timedcheck.h"

#include <algorithm>
#include <cstring>
#include <sched.h>

namespace kiln {

namespace {

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

constexpr int kCandidateArgs = 1000;
constexpr int kReferenceArgs = 2000;
constexpr int kScaleArgs = 3000;

} // namespace

CpuTimingSession::CpuTimingSession(const VerifierOptions &options, const Task &task,
                                   const ShapeConfig &shape, const FreshInputs &inputs,
                                   SandboxProcess &candidate, SandboxProcess &reference,
                                   const std::atomic<bool> &cancel)
    : m_options(options), m_task(task), m_shape(shape), m_inputs(inputs), m_candidate(candidate),
      m_reference(reference), m_cancel(cancel)
{
}

bool CpuTimingSession::request(SandboxProcess &box, const QByteArray &line, const QString &during,
                               SandboxProcess::Reply *reply, bool reference)
{
    *reply = box.request(line, m_options.batchTimeoutMs, &m_cancel);
    if (reply->status == SandboxProcess::Status::Ok)
        return true;
    m_failure = RequestFailure{*reply, during, reference};
    return false;
}

double CpuTimingSession::calibrateOverhead(SandboxProcess &box, bool reference)
{
    QByteArray nops = "batch";
    for (int i = 0; i < 21; ++i)
        nops += " nop";
    SandboxProcess::Reply reply;
    if (!request(box, nops, QStringLiteral("timer calibration"), &reply, reference))
        return -1.0;
    std::vector<double> times;
    for (int i = 1; i < reply.words.size(); ++i)
        times.push_back(reply.words[i].toDouble());
    std::sort(times.begin(), times.end());
    return times.empty() ? 0.0 : times[times.size() / 2];
}

bool CpuTimingSession::setUp()
{
    // Two slots on each side, used in turn: addresses never keep their values, and the
    // reference's answer to the call before stays at hand to recognise a stale one.
    for (Slot &slot : m_slots) {
        slot.candidate = m_candidateLayout.place(m_task, m_shape);
        for (const auto &buffer : slot.candidate.buffers)
            if (buffer.output)
                slot.snapshots.append(m_candidateLayout.reserve(buffer.bytes));
        slot.reference = m_referenceLayout.place(m_task, m_shape);
    }
    if (ReferenceBank::needsScale(m_task))
        m_scale = m_referenceLayout.place(m_task, m_shape);
    const auto failed = [this](const QString &what, bool reference) {
        m_failure = RequestFailure{{}, what, reference};
        return false;
    };
    if (!m_candidate.resizeBuffer(m_candidateLayout.size(), m_options.callTimeoutMs))
        return failed(QStringLiteral("growing the shared buffer"), false);
    if (!m_reference.resizeBuffer(m_referenceLayout.size(), m_options.callTimeoutMs))
        return failed(QStringLiteral("growing the baseline's buffer"), true);
    for (const auto &[offset, bytes] : m_candidateLayout.guards())
        OutputChecker::fillGuard(m_candidate.buffer() + offset, bytes);
    SandboxProcess::Reply reply;
    for (int s = 0; s < 2; ++s) {
        if (!request(m_candidate,
                     "args " + number(kCandidateArgs + s) + ' ' +
                         m_slots[s].candidate.argumentWords(m_task, m_shape),
                     QStringLiteral("timing setup"), &reply, false) ||
            !request(m_reference,
                     "args " + number(kReferenceArgs + s) + ' ' +
                         m_slots[s].reference.argumentWords(m_task, m_shape),
                     QStringLiteral("timing setup"), &reply, true))
            return false;
    }
    if (m_scale &&
        !request(m_reference,
                 "args " + number(kScaleArgs) + ' ' + m_scale->argumentWords(m_task, m_shape),
                 QStringLiteral("timing setup"), &reply, true))
        return false;
    m_overheadNs = calibrateOverhead(m_candidate, false);
    m_referenceOverheadNs = calibrateOverhead(m_reference, true);
    if (m_overheadNs < 0 || m_referenceOverheadNs < 0)
        return false;
    // The untimed part of a candidate's timed request: the same ops around an empty call, after
    // the same preparing request.
    std::vector<double> walls;
    for (int i = 0; i < kRequestCalibrations; ++i) {
        prepare(0);
        if (!request(m_candidate, preparingOps(0), QStringLiteral("timing calibration"), &reply,
                     false))
            return false;
        QElapsedTimer wall;
        wall.start();
        if (!request(m_candidate, timedOps(0, false), QStringLiteral("timing calibration"), &reply,
                     false))
            return false;
        walls.push_back(wall.nsecsElapsed() / 1e6);
        m_clockBound.calibrate({walls.back(), reply.words.value(2).toDouble() / 1e6, 1});
    }
    std::sort(walls.begin(), walls.end());
    m_requestOverheadMs = walls[walls.size() / 2];
    return true;
}

// A timed call takes two requests. The first readies the machine for it outside the engine's
// clock: the flush, the evictions of the call's buffers (which write back the lines the engine
// just wrote, as costly as the call itself on large inputs) and the poison. The second is the
// call with its snapshots, timed by the engine too (EngineClockBound): with nothing costly left
// around the call, what the engine sees beyond it is a pipe's round trip and the copies.
QByteArray CpuTimingSession::preparingOps(int call) const
{
    // The snapshots too: the engine read the last ones, and copying into lines another core
    // holds costs what the calibration's copies would not.
    const Slot &slot = m_slots[call % 2];
    QByteArray ops = "batch cpu flush" + evictions(slot.candidate);
    qsizetype o = 0;
    for (const PlacedBuffers::Buffer &buffer : slot.candidate.buffers)
        if (buffer.output)
            ops += " evict:" + number(slot.snapshots[o++]) + ':' + number(buffer.bytes);
    return ops + poison(call) + " cpu";
}

// call: the candidate's call, or an empty one (the calibration).
QByteArray CpuTimingSession::timedOps(int call, bool candidate) const
{
    const Slot &slot = m_slots[call % 2];
    QByteArray ops = "batch cpu";
    ops += candidate ? " call:c:" + number(kCandidateArgs + call % 2) : QByteArray(" nop");
    qsizetype o = 0;
    for (const PlacedBuffers::Buffer &buffer : slot.candidate.buffers) {
        if (!buffer.output)
            continue;
        ops += " snap:" + number(buffer.offset) + ':' + number(slot.snapshots[o++]) + ':' +
               number(buffer.bytes);
    }
    return ops + " cpu where";
}

// Fresh values for call j in both slots s = j % 2; the candidate's outputs filled with the
// sentinel.
void CpuTimingSession::prepare(int call)
{
    Slot &slot = m_slots[call % 2];
    char *candidate = m_candidate.buffer();
    char *reference = m_reference.buffer();
    for (qsizetype b = 0; b < slot.candidate.buffers.size(); ++b) {
        const PlacedBuffers::Buffer &mine = slot.candidate.buffers[b];
        const PlacedBuffers::Buffer &theirs = slot.reference.buffers[b];
        if (mine.output) {
            // The reference writes all of its output; the snapshot is a copy of the candidate's.
            OutputChecker::fillSentinel(candidate + mine.offset, mine.bytes);
            continue;
        }
        // Drawn into the reference's buffer, which no candidate code can write, then copied.
        m_inputs.draw(mine.parameter, call, reference + theirs.offset, mine.bytes / 4);
        std::memcpy(candidate + mine.offset, reference + theirs.offset, size_t(mine.bytes));
    }
}

// |inputs| of call `call` for the reference's untimed call on them (the scaled term of the
// tolerance).
void CpuTimingSession::prepareScale(int call)
{
    const Slot &slot = m_slots[call % 2];
    char *reference = m_reference.buffer();
    for (qsizetype b = 0; b < m_scale->buffers.size(); ++b) {
        const PlacedBuffers::Buffer &target = m_scale->buffers[b];
        const PlacedBuffers::Buffer &source = slot.reference.buffers[b];
        if (!target.output)
            ReferenceBank::absoluteValues(
                reference + source.offset, reference + target.offset, source.bytes,
                m_task.parameters[source.parameter].dtype == QLatin1String("i32"));
    }
}

// Every buffer of a call out of every core's caches (the engine wrote them on its core), so both
// sides start from memory.
QByteArray CpuTimingSession::evictions(const PlacedBuffers &placed)
{
    QByteArray ops;
    for (const PlacedBuffers::Buffer &buffer : placed.buffers)
        ops += " evict:" + number(buffer.offset) + ':' + number(buffer.bytes);
    return ops;
}

// Each call under the other poison (protocol.h): memory the candidate never wrote differs.
QByteArray CpuTimingSession::poison(int call)
{
    return " poison:" + number(sandbox::kPoisonFills[call % 2]);
}

bool CpuTimingSession::call(int call, Sample &sample)
{
    const int s = call % 2;
    const Slot &slot = m_slots[s];
    // The scale rides along after the timed call while recent calls needed it.
    // The baseline's CPU around its calls too: what a process that runs no candidate code uses
    // between requests is the yardstick for the candidate's.
    // The baseline runs on the CPU the candidate's calling thread last returned on: the cores of
    // a virtual machine need not be equally fast, and a pair must see the same one.
    QByteArray theirs = "batch";
    if (m_candidateCpu >= 0)
        theirs += " pin:" + number(m_candidateCpu);
    theirs += " cpu flush" + evictions(slot.reference) + " call:r:" + number(kReferenceArgs + s);
    m_scaleReady = m_scale && m_scaleLikely;
    if (m_scaleReady) {
        prepareScale(call);
        theirs += " call:r:" + number(kScaleArgs);
    }
    theirs += " cpu";
    SandboxProcess::Reply reply;
    for (const bool candidateTurn :
         {TimingLoop::candidateFirst(call), !TimingLoop::candidateFirst(call)}) {
        if (!candidateTurn) {
            if (!request(m_reference, theirs, QStringLiteral("the baseline's timed call"), &reply,
                         true))
                return false;
            const int pinned = m_candidateCpu >= 0 ? 1 : 0; // the pin's answer comes first
            noteBaselineCpu(reply, 1 + pinned);
            const double baselineNs = reply.words.value(2 + pinned).toDouble();
            m_baselineReportedMs += baselineNs / 1e6;
            sample.baselineMs = std::max(0.0, baselineNs - m_referenceOverheadNs) / 1e6;
            continue;
        }
        if (!candidateCall(call, sample))
            return false;
    }
    return true;
}

// The candidate's two requests (preparingOps, timedOps) and what their replies say: its CPU
// between requests, the call's time, where its thread returned.
bool CpuTimingSession::candidateCall(int call, Sample &sample)
{
    if (m_sinceLastReply.isValid())
        m_idleWallMs += m_sinceLastReply.nsecsElapsed() / 1e6;
    SandboxProcess::Reply prepared, reply;
    if (!request(m_candidate, preparingOps(call), QStringLiteral("timing"), &prepared, false))
        return false;
    QElapsedTimer wall;
    wall.start();
    if (!request(m_candidate, timedOps(call, true), QStringLiteral("timing"), &reply, false))
        return false;
    const double engineMs = wall.nsecsElapsed() / 1e6;
    m_engineMs += engineMs;
    m_sinceLastReply.start();
    if (prepared.words.size() != 3 || reply.words.size() != 5) {
        m_failure = RequestFailure{reply, QStringLiteral("timing (malformed reply)"), false};
        return false;
    }
    // CPU used between requests: before the preparing one, and between the two.
    if (m_lastCpuNs)
        m_idleCpuNs += std::max(0.0, prepared.words[1].toDouble() - *m_lastCpuNs);
    m_idleCpuNs += std::max(0.0, reply.words[1].toDouble() - prepared.words[2].toDouble());
    const double callNs = reply.words[2].toDouble();
    m_lastCpuNs = reply.words[3].toDouble();
    const int where = reply.words[4].toInt();
    m_candidateCpu = where >= 0 && where < CPU_SETSIZE ? where : -1;
    m_reportedMs += callNs / 1e6;
    m_clockBound.observe({engineMs, callNs / 1e6, 1});
    ++m_requests;
    sample.candidateMs = std::max(0.0, callNs - m_overheadNs) / 1e6;
    return true;
}

// The candidate's inputs as the engine wrote them: in full on fully judged calls, in windows
// elsewhere (the correctness stage compared whole inputs already).
bool CpuTimingSession::inputsIntact(int call, bool full)
{
    const Slot &slot = m_slots[call % 2];
    for (qsizetype b = 0; b < slot.candidate.buffers.size(); ++b) {
        const PlacedBuffers::Buffer &mine = slot.candidate.buffers[b];
        if (mine.output)
            continue;
        const char *got = m_candidate.buffer() + mine.offset;
        const char *want = m_reference.buffer() + slot.reference.buffers[b].offset;
        for (const auto &[start, bytes] :
             TimedCheck::windows(m_inputs.secret(), mine.bytes, full, call + 1))
            if (std::memcmp(got + start, want + start, size_t(bytes)) != 0) {
                m_flags.append(
                    {QStringLiteral("input_modified"), QStringLiteral("timed call %1").arg(call)});
                m_wrongDetail = QStringLiteral("modified an input during timed call %1").arg(call);
                return false;
            }
    }
    return true;
}

TimedCheck::Outcome CpuTimingSession::check(int call, bool full, bool scaled) const
{
    const Slot &slot = m_slots[call % 2];
    const Slot &before = m_slots[(call + 1) % 2];
    const char *candidate = m_candidate.buffer();
    const char *reference = m_reference.buffer();
    QList<TimedOutput> outputs;
    for (qsizetype o = 0, b = 0; b < slot.candidate.buffers.size(); ++b) {
        const PlacedBuffers::Buffer &mine = slot.candidate.buffers[b];
        if (!mine.output)
            continue;
        TimedOutput out;
        out.parameter = mine.parameter;
        out.atReturn = candidate + slot.snapshots[o++];
        out.now = candidate + mine.offset;
        out.expected = reference + slot.reference.buffers[b].offset;
        out.scale = scaled ? reference + m_scale->buffers[b].offset : nullptr;
        out.previous = call > 0 ? reference + before.reference.buffers[b].offset : nullptr;
        out.windows = TimedCheck::windows(m_inputs.secret(), mine.bytes, full, call);
        out.bytes = mine.bytes;
        outputs.append(out);
    }
    return TimedCheck::judge(m_task, outputs, call, m_inputs.distribution(call));
}

// Without the scaled term first (stricter): the reference on |inputs| costs a second reference
// call, which many calls do not need. Only where that fails is the scale used, computed with
// the timed call already when recent calls needed it too.
// A reply of the baseline's whose first and last times are its CPU clock.
void CpuTimingSession::noteBaselineCpu(const SandboxProcess::Reply &reply, int first)
{
    const double before = reply.words.value(first).toDouble();
    if (m_lastBaselineCpuNs)
        m_baselineIdleCpuNs += std::max(0.0, before - *m_lastBaselineCpuNs);
    m_lastBaselineCpuNs = reply.words.value(reply.words.size() - 1).toDouble();
}

bool CpuTimingSession::judge(int call, bool full)
{
    if (!inputsIntact(call, full))
        return false;
    TimedCheck::Outcome outcome = check(call, full, false);
    if (m_scale)
        m_scaleLikely = !outcome.ok;
    if (!outcome.ok && m_scale) {
        SandboxProcess::Reply reply;
        if (!m_scaleReady) {
            prepareScale(call);
            if (!request(m_reference, "batch cpu call:r:" + number(kScaleArgs) + " cpu",
                         QStringLiteral("the tolerance scale"), &reply, true))
                return false;
            noteBaselineCpu(reply, 1);
        }
        ++m_scaleCalls;
        outcome = check(call, full, true);
    }
    m_flags += outcome.flags;
    if (!outcome.ok)
        m_wrongDetail = outcome.detail;
    return outcome.ok;
}

bool CpuTimingSession::time(int first, int count, QList<Sample> &samples)
{
    for (int j = first; j < first + count; ++j) {
        prepare(j);
        Sample sample;
        if (!call(j, sample) || !judge(j, j < TimedCheck::kFullCalls))
            return false;
        samples.append(sample);
        if (m_cancel.load())
            return true;
    }
    return true;
}

bool CpuTimingSession::finalCheck(int callIndex)
{
    Sample unused;
    prepare(callIndex);
    if (!call(callIndex, unused))
        return false;
    if (!judge(callIndex, true)) {
        m_wrongDetail = QStringLiteral("after timing: ") + m_wrongDetail;
        return false;
    }
    if (!OutputChecker::guardsIntact(m_candidate.buffer(), m_candidateLayout.guards())) {
        m_flags.append({QStringLiteral("guard_band_overwrite"), QStringLiteral("timing")});
        m_wrongDetail = QStringLiteral("wrote outside its buffers during timing");
        return false;
    }
    return true;
}

double CpuTimingSession::explainedMs() const
{
    return m_reportedMs + m_requests * m_requestOverheadMs;
}

} // namespace kiln
