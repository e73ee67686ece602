#include "verifier/cuda/cudatimingsession.h"

#include "sandbox/freshvalues.h"
#include "sandbox/protocol.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/timedcheck.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cstring>
#include <numeric>

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

QList<CudaTimingSession::Call> callsOf(const SandboxProcess::Reply &reply)
{
    QList<CudaTimingSession::Call> calls;
    for (qsizetype i = 1; i < reply.words.size(); ++i)
        if (const auto call = CudaTimingSession::parseCall(reply.words[i]))
            calls.append(*call);
    return calls;
}

// The checker's answers ("m,..." comparisons and "n,..." counts), in op order.
QList<QByteArray> checksOf(const SandboxProcess::Reply &reply)
{
    QList<QByteArray> checks;
    for (qsizetype i = 1; i < reply.words.size(); ++i)
        if (reply.words[i].startsWith("m,") || reply.words[i].startsWith("n,"))
            checks.append(reply.words[i]);
    return checks;
}

// "m,mismatches,first,got,expected,max-abs,max-rel,unwritten,non-finite" for `elements`.
std::optional<CheckResult> comparisonOf(const QByteArray &word, qint64 elements)
{
    const QList<QByteArray> f = word.split(',');
    if (f.size() != 9 || f[0] != "m")
        return std::nullopt;
    CheckResult r;
    r.elements = elements;
    r.mismatches = f[1].toLongLong();
    r.firstMismatch = f[2].toLongLong();
    r.gotAtFirst = f[3].toDouble();
    r.expectedAtFirst = f[4].toDouble();
    r.maxAbsError = f[5].toDouble();
    r.maxRelError = f[6].toDouble();
    r.unwritten = f[7].toLongLong();
    r.nonFinite = f[8].toLongLong();
    r.ok = r.mismatches == 0;
    return r;
}

// "n,count,first": words that differ; -1 when the reply does not parse.
qint64 countOf(const QByteArray &word)
{
    const QList<QByteArray> f = word.split(',');
    return f.size() == 3 && f[0] == "n" ? f[1].toLongLong() : -1;
}

QByteArray tolerance(const Task &task, const TaskParameter &parameter)
{
    const Tolerance t = task.tolerances.value(parameter.dtype);
    return QByteArray::number(t.abs, 'g', 17) + ':' + QByteArray::number(t.rel, 'g', 17) + ':' +
           QByteArray::number(t.scaled, 'g', 17);
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
                                     bool library, quint64 salt)
    : m_options(options), m_task(task), m_shape(shape),
      m_inputs(inputs), m_candidate{processes.candidate}, m_baseline{processes.baseline},
      m_send(std::move(send)), m_arguments(std::move(arguments)), m_library(library), m_salt(salt)
{
}

int CudaTimingSession::baselineCallsPerCall() const
{
    return 1 + (m_slots.first().scale ? 1 : 0) + (m_library ? 1 : 0);
}

// Per call: two comparisons per output (the reference's answer, the previous call's) and one
// count per input.
int CudaTimingSession::checksPerCall() const
{
    int checks = 0;
    for (const auto &buffer : m_slots.first().call.buffers)
        checks += buffer.output ? 2 : 1;
    return checks;
}

// As many slots as the device memory the options allow holds, 2 to 5.
int CudaTimingSession::slotCount(qint64 perSlotBytes) const
{
    return int(std::clamp<qint64>(
        m_options.cudaTimingMemoryBytes / std::max<qint64>(1, perSlotBytes), 2, 5));
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

// The candidate's device buffers, and the IPC handle the checker maps them with. Nothing of
// the timing goes through its host buffer.
bool CudaTimingSession::prepareCandidate(QByteArray *handle)
{
    const int transferMs = m_options.cudaCallTimeoutMs + int(m_candidate.layout.size() >> 20);
    SandboxProcess::Reply reply;
    if (!m_send(false, "alloc " + number(m_candidate.layout.size()), transferMs,
                QStringLiteral("timing allocation"), nullptr) ||
        !m_send(false, "export", m_options.cudaCallTimeoutMs, QStringLiteral("timing setup"),
                &reply))
        return false;
    *handle = reply.words.value(0);
    return true;
}

// The checker's buffers and tables (staged through a host buffer just large enough for the
// tables, which come first in its layout), the candidate's mirror mapped, its guard bands set.
bool CudaTimingSession::prepareChecker(const QByteArray &handle)
{
    qint64 tablesEnd = 0;
    for (const QList<qint64> &tables : std::as_const(m_baseline.tables))
        for (qint64 offset : tables)
            tablesEnd = std::max(tablesEnd, offset + (qint64(4) << fresh::kTableBits));
    if (!m_baseline.box.resizeBuffer(std::max<qint64>(tablesEnd, 4096),
                                     m_options.cudaCallTimeoutMs)) {
        m_harnessFailure = QStringLiteral("cannot grow the checker's shared buffer");
        return false;
    }
    char *base = m_baseline.box.buffer();
    QByteArray upload = "batch";
    for (int p = 0; p < m_baseline.tables.size(); ++p)
        for (int d = 0; d < m_baseline.tables[p].size(); ++d) {
            const QByteArray &table = m_inputs.table(p, d);
            std::memcpy(base + m_baseline.tables[p][d], table.constData(), size_t(table.size()));
            upload += " h2d:" + region(m_baseline.tables[p][d], table.size());
        }
    QByteArray guards = "batch";
    for (const auto &[offset, bytes] : m_candidate.layout.guards())
        guards += " rset:" + region(offset, bytes) + ':' + number(sandbox::kGuardWord);
    const int transferMs = m_options.cudaCallTimeoutMs + int(m_baseline.layout.size() >> 20);
    const QString during = QStringLiteral("the checker's setup");
    return m_send(true, "alloc " + number(m_baseline.layout.size()), transferMs, during, nullptr) &&
           m_send(true, upload, transferMs, during, nullptr) &&
           m_send(true, "import " + handle + ' ' + number(m_candidate.layout.size()),
                  m_options.cudaCallTimeoutMs, during, nullptr) &&
           m_send(true, guards, m_options.cudaCallTimeoutMs, during, nullptr);
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
    for (int i = 0; i < kCalibrationCalls; ++i)
        nops += " flush nop";
    SandboxProcess::Reply reply;
    QElapsedTimer engine;
    engine.start();
    if (!m_send(baseline, nops, m_options.cudaCallTimeoutMs, QStringLiteral("timer calibration"),
                &reply))
        return false;
    const double engineMs = engine.nsecsElapsed() / 1e6;
    QList<double> events, gaps;
    for (const Call &call : callsOf(reply)) {
        events.append(call.eventMs);
        gaps.append(call.wallMs - call.eventMs);
    }
    side.overheadMs = TimingStats::medianOf(events);
    side.gapMs = TimingStats::medianOf(gaps);
    if (baseline)
        return true;
    m_clockBound.calibrate(
        {engineMs, std::accumulate(events.begin(), events.end(), 0.0), int(events.size())});
    return calibrateSingleRequests();
}

// Requests of one empty call: with the batch above, the untimed part of a request as a fixed
// part and a part per call, which the engine's clock bound needs.
bool CudaTimingSession::calibrateSingleRequests()
{
    for (int i = 0; i < kSingleCalibrations; ++i) {
        SandboxProcess::Reply reply;
        QElapsedTimer engine;
        engine.start();
        if (!m_send(false, "batch flush nop", m_options.cudaCallTimeoutMs,
                    QStringLiteral("timer calibration"), &reply))
            return false;
        const double engineMs = engine.nsecsElapsed() / 1e6;
        const QList<Call> calls = callsOf(reply);
        if (calls.size() == 1)
            m_clockBound.calibrate({engineMs, calls.first().eventMs, 1});
    }
    return true;
}

bool CudaTimingSession::setUp()
{
    QElapsedTimer timer;
    timer.start();
    // The checker's tables first: its host staging covers only them.
    m_baseline.tables = QList<QList<qint64>>(m_task.parameters.size());
    const qint64 tableBytes = qint64(4) << fresh::kTableBits;
    for (int p = 0; p < m_task.parameters.size(); ++p)
        if (m_task.parameters[p].role == TaskParameter::Role::Input)
            for (int d = 0; d < m_inputs.distributionCount(); ++d)
                m_baseline.tables[p].append(m_baseline.layout.reserve(tableBytes));
    placeSlots();
    QByteArray handle;
    const bool ready = prepareCandidate(&handle) && prepareChecker(handle) && sendArguments();
    m_setupMs = timer.nsecsElapsed() / 1e6;
    return ready;
}

bool CudaTimingSession::calibrateTimers()
{
    QElapsedTimer timer;
    timer.start();
    const bool calibrated = calibrate(m_candidate, false) && calibrate(m_baseline, true);
    m_overheadMs = m_candidate.overheadMs;
    m_calibrationMs = timer.nsecsElapsed() / 1e6;
    return calibrated;
}

// In the checker, untimed: the call's fresh inputs drawn into its slot and copied into the
// candidate's, the candidate's outputs set to the sentinel, the reference on |inputs| where the
// tolerance has a scaled term.
void CudaTimingSession::prepareOps(int call, QByteArray &ops) const
{
    const int s = int(call % m_slots.size());
    const Slot &slot = m_slots[s];
    for (qsizetype b = 0; b < slot.call.buffers.size(); ++b) {
        const auto &mine = slot.call.buffers[b];
        const auto &theirs = slot.reference.buffers[b];
        if (mine.output) {
            ops += " rset:" + region(mine.offset, mine.bytes) + ':' +
                   number(sandbox::kSentinelWord) + " fill:" + region(theirs.offset, theirs.bytes);
            continue;
        }
        const QList<qint64> &tables = m_baseline.tables[mine.parameter];
        ops += " fresh:" + region(theirs.offset, theirs.bytes) + ':' +
               number(tables[call % tables.size()]) + ':' + number(fresh::kTableBits) + ':' +
               QByteArray::number(m_inputs.key(mine.parameter, call) ^ m_salt);
        ops += " put:" + number(theirs.offset) + ':' + region(mine.offset, mine.bytes);
    }
    if (m_library)
        for (const auto &buffer : slot.library.buffers)
            if (buffer.output)
                ops += " fill:" + region(buffer.offset, buffer.bytes);
    if (slot.scale) {
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
    }
}

// The timed reference (and library) calls on the same inputs.
void CudaTimingSession::referenceOps(int call, QByteArray &ops) const
{
    const int s = int(call % m_slots.size());
    ops += " flush call:r:" + number(kReferenceArgs + s);
    if (m_library)
        ops += " flush call:b:" + number(kLibraryArgs + s);
}

// After the candidate's call: each output against the reference's answer and the previous
// call's, each input against what the checker wrote, in full.
void CudaTimingSession::checkOps(int call, QByteArray &ops) const
{
    const Slot &slot = slotOf(call);
    const Slot &before = slotOf(call + int(m_slots.size()) - 1);
    for (qsizetype b = 0; b < slot.call.buffers.size(); ++b) {
        const auto &mine = slot.call.buffers[b];
        const auto &theirs = slot.reference.buffers[b];
        if (!mine.output) {
            ops += " same:" + number(mine.offset) + ':' + region(theirs.offset, theirs.bytes);
            continue;
        }
        const TaskParameter &parameter = m_task.parameters[mine.parameter];
        const QByteArray kind = parameter.dtype == QLatin1String("i32") ? "i" : "f";
        const QByteArray scale = slot.scale ? number(slot.scale->buffers[b].offset) : "-";
        const QByteArray rest =
            scale + ':' + number(mine.bytes) + ':' + kind + ':' + tolerance(m_task, parameter);
        ops += " cmp:" + number(mine.offset) + ':' + number(theirs.offset) + ':' + rest;
        ops += " cmp:" + number(mine.offset) + ':' + number(before.reference.buffers[b].offset) +
               ':' + rest;
    }
}

// Calls first .. first+count-1: the checker prepares, the candidate and the reference are timed
// in TimingLoop's order, the checker judges. Three requests whatever the order.
bool CudaTimingSession::run(int first, int count, bool finalCall, Times &times,
                            QList<QByteArray> &checks)
{
    const bool candidateFirst = TimingLoop::candidateFirst(first);
    QByteArray prepare = "batch", mine = "batch", verify = "batch";
    for (int j = first; j < first + count; ++j) {
        prepareOps(j, prepare);
        mine += " flush call:c:" + number(kCandidateArgs + j % m_slots.size());
        referenceOps(j, candidateFirst ? verify : prepare);
    }
    for (int j = first; j < first + count; ++j)
        checkOps(j, verify);
    if (finalCall)
        for (const auto &[offset, bytes] : m_candidate.layout.guards())
            verify += " rcount:" + region(offset, bytes) + ':' + number(sandbox::kGuardWord);
    const int timeoutMs = m_options.cudaCallTimeoutMs * (finalCall ? 2 : 1) + count * 2000;
    const QString during = finalCall ? QStringLiteral("the final check") : QStringLiteral("timing");
    const QString checkerDuring =
        finalCall ? QStringLiteral("the final check") : QStringLiteral("the checker's timing");
    SandboxProcess::Reply prepared, mineReply, verified;
    if (!m_send(true, prepare, timeoutMs, checkerDuring, &prepared))
        return false;
    QElapsedTimer engine;
    engine.start();
    if (!m_send(false, mine, timeoutMs, during, &mineReply))
        return false;
    const double engineMs = engine.nsecsElapsed() / 1e6;
    if (!m_send(true, verify, timeoutMs, checkerDuring, &verified))
        return false;
    times.candidate = callsOf(mineReply);
    double reportedMs = 0.0;
    for (const Call &call : times.candidate)
        reportedMs += call.eventMs;
    m_clockBound.observe({engineMs, reportedMs, int(times.candidate.size())});
    // Per call, where the reference's calls are: [scale] reference [library] in the prepare
    // reply when it went first, reference [library] in the verify reply when it went second.
    const QList<Call> baseline = callsOf(candidateFirst ? verified : prepared);
    const int scale = m_slots.first().scale ? 1 : 0;
    const int skip = candidateFirst ? 0 : scale;
    const int per = skip + 1 + (m_library ? 1 : 0);
    checks = checksOf(verified);
    const int guardChecks = finalCall ? int(m_candidate.layout.guards().size()) : 0;
    if (times.candidate.size() != count || baseline.size() != count * per ||
        checks.size() != count * checksPerCall() + guardChecks) {
        m_harnessFailure = QStringLiteral("malformed timing reply");
        return false;
    }
    times.reference.clear();
    times.library.clear();
    for (int k = 0; k < count; ++k) {
        times.reference.append(baseline[k * per + skip]);
        if (m_library)
            times.library.append(baseline[k * per + skip + 1]);
    }
    return true;
}

bool CudaTimingSession::judge(int call, const QList<QByteArray> &checks, qsizetype &at)
{
    const Slot &slot = slotOf(call);
    QList<TimedFinding> findings;
    bool inputsIntact = true;
    for (const auto &buffer : slot.call.buffers) {
        if (!buffer.output) {
            // Every input's count is read, so the next output's answers stay in step.
            const bool intact = countOf(checks.value(at++)) == 0;
            inputsIntact = inputsIntact && intact;
            continue;
        }
        const std::optional<CheckResult> expected =
            comparisonOf(checks.value(at++), buffer.bytes / 4);
        const std::optional<CheckResult> previous =
            comparisonOf(checks.value(at++), buffer.bytes / 4);
        if (!expected || !previous) {
            m_harnessFailure = QStringLiteral("malformed comparison from the GPU checker");
            return false;
        }
        TimedFinding finding;
        finding.parameter = buffer.parameter;
        finding.check = *expected;
        finding.matchesPrevious = call > 0 && !expected->ok && previous->ok;
        findings.append(finding);
    }
    const TimedCheck::Outcome outcome =
        TimedCheck::conclude(m_task, findings, call, m_inputs.distribution(call));
    m_flags += outcome.flags;
    if (!outcome.ok) {
        m_wrongDetail = outcome.detail;
        return false;
    }
    if (!inputsIntact) {
        m_flags.append(
            {QStringLiteral("input_modified"), QStringLiteral("timed call %1").arg(call)});
        m_wrongDetail = QStringLiteral("modified an input during timed call %1").arg(call);
        return false;
    }
    return true;
}

bool CudaTimingSession::time(int first, int count, QList<Sample> &samples)
{
    QElapsedTimer part;
    part.start();
    Times times;
    QList<QByteArray> checks;
    if (!run(first, count, false, times, checks))
        return false;
    m_batchMs += part.nsecsElapsed() / 1e6;
    qsizetype at = 0;
    for (int k = 0; k < count; ++k) {
        const int j = first + k;
        if (!judge(j, checks, at))
            return false;
        const Call &mine = times.candidate[k];
        Sample sample;
        sample.candidateMs = std::max(0.0, mine.eventMs - m_candidate.overheadMs);
        sample.baselineMs = std::max(0.0, times.reference[k].eventMs - m_baseline.overheadMs);
        if (m_library)
            sample.libraryMs = std::max(0.0, times.library[k].eventMs - m_baseline.overheadMs);
        samples.append(sample);
        m_tails.append(mine.tailMs);
        m_gaps.append(mine.wallMs - mine.eventMs - m_candidate.gapMs);
    }
    return true;
}

bool CudaTimingSession::finalCheck(int call)
{
    Times times;
    QList<QByteArray> checks;
    if (!run(call, 1, true, times, checks))
        return false;
    qsizetype at = 0;
    if (!judge(call, checks, at)) {
        m_wrongDetail = QStringLiteral("after timing: ") + m_wrongDetail;
        return false;
    }
    for (; at < checks.size(); ++at)
        if (countOf(checks[at]) != 0) {
            m_flags.append({QStringLiteral("guard_band_overwrite"), QStringLiteral("timing")});
            m_wrongDetail = QStringLiteral("wrote outside its buffers during timing");
            return false;
        }
    return true;
}

QJsonObject CudaTimingSession::phases() const
{
    return {{QStringLiteral("upload_ms"), m_setupMs},
            {QStringLiteral("calibration_ms"), m_calibrationMs},
            {QStringLiteral("batch_ms"), m_batchMs},
            {QStringLiteral("slots"), int(m_slots.size())},
            {QStringLiteral("checker"), QStringLiteral("gpu")},
            {QStringLiteral("baseline_process"), QStringLiteral("separate")},
            {QStringLiteral("baseline_timer_overhead_ms"), m_baseline.overheadMs}};
}

} // namespace kiln
