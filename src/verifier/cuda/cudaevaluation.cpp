#include "verifier/cuda/cudaevaluation.h"

#include "verifier/cuda/cudacorrectnesssession.h"
#include "verifier/cuda/cudatimingsession.h"
#include "verifier/harness/adaptivetiming.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/corewaker.h"
#include "verifier/harness/correctnessloop.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/freshinputs.h"
#include "verifier/harness/inputgenerator.h"
#include "verifier/harness/renumberedsession.h"
#include "verifier/harness/secretdigest.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/staticscreen.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QSet>
#include <algorithm>
#include <cstring>
#include <unistd.h>

namespace kiln {

namespace {

// The tail's threshold is the correctness calls' too.
constexpr double kSideStreamTailMs = CudaCorrectnessSession::kSideStreamTailMs;
constexpr double kSideStreamGapMs = 0.05;
// NVML renews each process's one sample up to about a second apart (GpuActivity::waitForSamples).
constexpr int kSampleWaitMs = 1500;
// The engine's clock bound is a verdict on CUDA only above this per call (and above the
// reported time): halted cores left honest kernels up to 1.5 ms a call on an H100, kept awake
// 0.044 ms.
constexpr double kHardClockGapMs = 0.5;

// An engine-clock gap as large as the reported time itself (a fake of 2x or more), past what
// halted cores ever left: the only size of it a verdict may rest on.
bool largeClockGap(const EngineClockBound::Finding &bound)
{
    return bound.exceeded &&
           bound.unexplainedMsPerCall > std::max(kHardClockGapMs, bound.reportedMsPerCall);
}

QString stageName(const char *name)
{
    return QString::fromLatin1(name);
}

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

} // namespace

CudaEvaluation::CudaEvaluation(const VerifierOptions &options, CompileCache &cache,
                               ReferenceBank &references, CudaSandboxPool &pool, const Task &task,
                               const QString &source, quint64 runSecret,
                               const std::atomic<bool> &cancel)
    : BackendEvaluation(Backend::Cuda), m_options(options), m_cache(cache),
      m_references(references), m_pool(pool), m_task(task), m_source(source), m_secret(runSecret),
      m_cancel(cancel)
{
}

bool CudaEvaluation::lockGpu(DeviceLock::Mode mode)
{
    m_gpuLock.reset();
    m_gpuLock = std::make_unique<DeviceLock>(m_slot->device().lockName(), mode, &m_cancel);
    if (!m_gpuLock->cancelled())
        return true;
    m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled while waiting for the GPU")};
    return false;
}

bool CudaEvaluation::send(const QByteArray &line, int timeoutMs, const QString &during,
                          SandboxProcess::Reply *out)
{
    return deliver(false, line, timeoutMs, during, out);
}

bool CudaEvaluation::sendToBaseline(const QByteArray &line, int timeoutMs, const QString &during,
                                    SandboxProcess::Reply *out)
{
    return deliver(true, line, timeoutMs, during, out);
}

bool CudaEvaluation::deliver(bool baseline, const QByteArray &line, int timeoutMs,
                             const QString &during, SandboxProcess::Reply *out)
{
    SandboxProcess &box = baseline ? m_slot->baselineProcess() : candidateProcess();
    const SandboxProcess::Reply reply = box.request(line, timeoutMs, &m_cancel);
    if (out)
        *out = reply;
    if (reply.status == SandboxProcess::Status::Ok)
        return true;
    bool &restart = baseline ? m_restartBaseline : m_restartSandbox;
    m_failure = describeFailure(box, reply, timeoutMs, during, baseline, &restart);
    // The baseline's process runs the reference and the library baseline only: whatever
    // happens there is the verifier's, never the candidate's.
    if (baseline && reply.status != SandboxProcess::Status::Cancelled)
        m_failure = EvaluationRecorder::verifierFailure(m_failure->message);
    return false;
}

// What a failed request means for the verdict; sets *restart when the process must go.
CudaEvaluation::Failure CudaEvaluation::describeFailure(const SandboxProcess &box,
                                                        const SandboxProcess::Reply &reply,
                                                        int timeoutMs, const QString &during,
                                                        bool baseline, bool *restart) const
{
    const QString which = baseline               ? QStringLiteral("the baseline's GPU sandbox")
                          : m_admission.admitted ? QStringLiteral("the GPU launcher")
                                                 : QStringLiteral("the GPU sandbox");
    using Status = SandboxProcess::Status;
    *restart = *restart || reply.status != Status::Error;
    switch (reply.status) {
    case Status::Ok:
    case Status::Error:
        if (reply.words.value(0) == "cuda") {
            // err cuda <code> <sticky> <name> <text...>
            const bool sticky = reply.words.value(2) == "1";
            *restart = *restart || sticky;
            const QString text = QString::fromUtf8(reply.words.mid(3).join(' '));
            return {Verdict::Crash,
                    QStringLiteral("CUDA error during %1: %2%3")
                        .arg(during, text,
                             sticky ? QStringLiteral(" (context lost; %1 is restarted)").arg(which)
                                    : QString())};
        }
        return {Verdict::Crash, QStringLiteral("sandbox error during %1: %2")
                                    .arg(during, QString::fromUtf8(reply.line))};
    case Status::TimedOut:
        return {Verdict::Timeout, QStringLiteral("no answer during %1 within %2 s (a kernel that "
                                                 "never ends?); %3 was killed and restarted")
                                      .arg(during)
                                      .arg(timeoutMs / 1000.0)
                                      .arg(which)};
    case Status::Cancelled:
        return {Verdict::Timeout, QStringLiteral("cancelled during %1").arg(during)};
    case Status::Flooded:
        return {Verdict::Resource,
                QStringLiteral("wrote more than %1 MiB to stdout/stderr during %2")
                    .arg(m_options.sandbox.outputCapBytes >> 20)
                    .arg(during)};
    case Status::Died:
        break;
    }
    const QList<QByteArray> fatal = box.fatalLine().split(' ');
    if (fatal.value(0) == "resource")
        return {Verdict::Resource,
                QStringLiteral("a host allocation failed during %1").arg(during)};
    if (fatal.value(0) == "fatal")
        return {Verdict::Crash,
                QStringLiteral("crashed during %1: signal %2 (%3)")
                    .arg(during, QString::fromLatin1(fatal.value(1)), box.describeEnd())};
    return {Verdict::Crash,
            (baseline ? QStringLiteral("the baseline's GPU sandbox ended during %1 (%2)")
                      : QStringLiteral("the candidate ended the GPU sandbox during "
                                       "%1 (%2)"))
                .arg(during, box.describeEnd())};
}

void CudaEvaluation::screen(const CompiledArtifact &artifact, bool symbolsAvailable)
{
    QElapsedTimer timer;
    timer.start();
    ElfSymbols symbols;
    if (symbolsAvailable)
        symbols = ElfSymbols::read(artifact.object);
    const QString text = artifact.preprocessed.isEmpty() ? m_source : artifact.preprocessed;
    QList<CheatFlag> flags =
        StaticScreen::screen(m_task, Backend::Cuda, text, CudaCompiler::sourceName(), symbols);
    // A line marker written in the source would make the preprocessed text hide the code after
    // it from the screen.
    if (StaticScreen::isPreprocessed(text)) {
        const QList<int> lines = StaticScreen::lineDirectiveLines(m_source);
        if (!lines.isEmpty())
            flags.append(FlagCatalog::make(QStringLiteral("line_directive"), lines));
    }
    m_result.flags.append(flags);
    int blocking = 0;
    QJsonArray ids;
    for (const CheatFlag &flag : flags) {
        blocking += flag.blocking ? 1 : 0;
        ids.append(flag.id);
    }
    addStage(
        stageName("screen"), blocking == 0, timer.nsecsElapsed() / 1e6,
        flags.isEmpty()
            ? QStringLiteral("no findings")
            : QStringLiteral("%1 finding(s), %2 blocking").arg(flags.size()).arg(blocking),
        {{QStringLiteral("flags"), ids},
         {QStringLiteral("symbols_read"), symbols.valid},
         {QStringLiteral("imports"), QJsonArray::fromStringList(symbols.undefined.mid(0, 64))}});
}

bool CudaEvaluation::compileCandidate()
{
    QString error;
    m_geometry = LaunchGeometry::parse(m_source, &error);
    if (!error.isEmpty()) {
        m_wrongDetail = error;
        addStage(stageName("compile"), false, 0.0, error,
                 {{QStringLiteral("path"), QStringLiteral("nvrtc")}});
        return false;
    }
    const bool deviceOnly = m_geometry.has_value();
    m_candidateBuild = deviceOnly ? CudaCompiler::nvrtc(m_options, m_cache, m_task.name, m_source,
                                                        m_architecture, &m_cancel)
                                  : CudaCompiler::nvcc(m_options, m_cache, m_task.name, m_source,
                                                       EntryShim::cudaSource(m_task),
                                                       m_architecture, {}, &m_cancel);
    const CudaCompiler::Outcome &build = m_candidateBuild;
    const CompiledArtifact &artifact = build.artifact;
    const QString path = deviceOnly ? QStringLiteral("nvrtc") : QStringLiteral("nvcc");
    screen(artifact, !deviceOnly);
    m_objectBuilt = !deviceOnly && !artifact.object.isEmpty();
    if (build.status != SandboxProcess::Status::Ok) {
        if (build.status == SandboxProcess::Status::TimedOut) {
            m_failure =
                Failure{Verdict::CompileError, QStringLiteral("compilation took longer than %1 s")
                                                   .arg(m_options.compileTimeoutMs / 1000)};
        } else {
            m_failure = Failure{Verdict::Crash,
                                QStringLiteral("compilation failed to run: ") + build.error};
        }
        addStage(stageName("compile"), false, build.ms, m_failure->message,
                 {{QStringLiteral("path"), path}});
        return false;
    }
    const QJsonArray diagnostics = CudaCompiler::parseDiagnostics(artifact.log);
    QString detail;
    if (artifact.ok) {
        detail = artifact.cached
                     ? QStringLiteral("cached (%1)").arg(path)
                     : QStringLiteral("%1 in %2 ms").arg(path).arg(artifact.compileMs, 0, 'f', 0);
    } else {
        for (const QJsonValue &d : diagnostics) {
            if (d[QStringLiteral("severity")].toString().contains(QLatin1String("error"))) {
                const int line = d[QStringLiteral("line")].toInt();
                detail = (line > 0 ? QStringLiteral("line %1: ").arg(line) : QString()) +
                         d[QStringLiteral("message")].toString();
                break;
            }
        }
        if (detail.isEmpty())
            detail = artifact.log.trimmed().section(QLatin1Char('\n'), -1).left(200);
    }
    addStage(stageName("compile"), artifact.ok, build.ms, detail,
             {{QStringLiteral("path"), path},
              {QStringLiteral("architecture"), m_architecture},
              {QStringLiteral("cached"), artifact.cached},
              {QStringLiteral("exit_code"), artifact.exitCode},
              {QStringLiteral("compiler_ms"), artifact.compileMs},
              {QStringLiteral("kernels"), build.kernels},
              {QStringLiteral("diagnostics"), diagnostics}});
    m_compiled = artifact.ok;
    if (artifact.ok && deviceOnly) {
        QFile cubin(artifact.sharedObject);
        m_admission = LauncherAdmission::judge(
            cubin.open(QIODevice::ReadOnly) ? cubin.readAll() : QByteArray(), m_options);
        annotateStage(stageName("compile"), m_admission.toJson());
    }
    if (!artifact.ok) {
        m_wrongDetail = detail;
        // A link failure is the flag's doing when the screen found a forbidden library: the
        // candidate called it and the link (rightly) could not resolve it.
        bool unresolved = false;
        for (const QJsonValue &d : diagnostics)
            unresolved = unresolved || d[QStringLiteral("message")].toString().startsWith(
                                           QLatin1String("undefined reference to "));
        bool explained = false;
        for (const CheatFlag &flag : m_result.flags)
            explained = explained || (unresolved && flag.blocking &&
                                      flag.id == QLatin1String("forbidden_library"));
        m_objectBuilt = m_objectBuilt && explained;
    }
    return artifact.ok;
}

bool CudaEvaluation::compileBaselines()
{
    const QString reference = m_task.referenceSource.value(Backend::Cuda);
    if (reference.isEmpty()) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("task %1 has no CUDA reference").arg(m_task.name));
        return false;
    }
    const CudaCompiler::Outcome ref =
        CudaCompiler::nvcc(m_options, m_cache, m_task.name, reference,
                           EntryShim::cudaSource(m_task), m_architecture, {}, &m_cancel);
    if (!ref.artifact.ok) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("the CUDA reference does not build: %1")
                .arg(ref.error.isEmpty() ? ref.artifact.log.left(400) : ref.error));
        return false;
    }
    m_referenceObject = ref.artifact.sharedObject;
    const QString library = m_task.libraryBaselineSource.value(Backend::Cuda);
    if (!library.isEmpty()) {
        const CudaCompiler::Outcome lib = CudaCompiler::nvcc(
            m_options, m_cache, m_task.name, library, EntryShim::cudaSource(m_task), m_architecture,
            m_task.libraryBaselineLibraries.value(Backend::Cuda), &m_cancel);
        // A missing library (no cuBLAS installed) costs the extra baseline, not the verdict.
        if (lib.artifact.ok)
            m_libraryObject = lib.artifact.sharedObject;
    }
    return true;
}

bool CudaEvaluation::loadIntoSandbox()
{
    m_candidateLoaded = true; // from here on candidate code (static initialisers) may run
    const QByteArray symbol(EntryShim::kSymbol);
    if (m_geometry) {
        SandboxProcess::Reply reply;
        QByteArray load =
            "loadcubin c " + m_task.entry.toLatin1() + ' ' +
            candidateProcess().stage(m_candidateBuild.artifact.sharedObject).toLocal8Bit();
        for (const QString &global : std::as_const(m_admission.zeroFilled))
            load += ' ' + global.toLatin1();
        if (!send(load, m_options.cudaCallTimeoutMs, QStringLiteral("loading the kernel"),
                  &reply)) {
            if (m_failure && reply.status == SandboxProcess::Status::Error &&
                reply.words.value(0) == "cannot") {
                // No kernel named after the entry: the candidate's mistake, not a crash.
                m_failure.reset();
                m_compiled = false;
                m_wrongDetail = QString::fromUtf8(reply.words.join(' '));
            }
            return false;
        }
        if (send("kernels c", m_options.cudaCallTimeoutMs, QStringLiteral("kernel attributes"),
                 &reply)) {
            QJsonArray kernels;
            for (const QByteArray &word : std::as_const(reply.words)) {
                const QList<QByteArray> f = word.split(':');
                if (f.size() >= 4)
                    kernels.append(QJsonObject{{QStringLiteral("name"), QString::fromUtf8(f[0])},
                                               {QStringLiteral("registers"), f[1].toInt()},
                                               {QStringLiteral("shared_bytes"), f[2].toInt()},
                                               {QStringLiteral("spill_bytes"), f[3].toInt()}});
            }
            annotateStage(stageName("compile"), {{QStringLiteral("kernels"), kernels}});
        }
    } else {
        SandboxProcess::Reply reply;
        if (!send(
                "load c " + symbol + ' ' +
                    candidateProcess().stage(m_candidateBuild.artifact.sharedObject).toLocal8Bit(),
                m_options.cudaCallTimeoutMs, QStringLiteral("loading (static initialisers)"),
                &reply)) {
            if (reply.status == SandboxProcess::Status::Error && reply.words.value(0) != "cuda") {
                m_failure.reset();
                m_compiled = false;
                m_wrongDetail =
                    QStringLiteral("cannot load: ") + QString::fromUtf8(reply.words.join(' '));
            }
            return false;
        }
    }
    return true;
}

// The reference and the library baseline, in the baseline's process (once per run there).
bool CudaEvaluation::loadBaselines()
{
    QString error;
    if (!m_slot->ensureBaselineStarted(&error)) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("cannot start the baseline's GPU sandbox: ") + error);
        return false;
    }
    const QByteArray symbol(EntryShim::kSymbol);
    if (m_slot->loadedReference != m_referenceObject) {
        m_slot->loadedReference.clear();
        if (!sendToBaseline("load r " + symbol + ' ' + m_referenceObject.toLocal8Bit(),
                            m_options.cudaCallTimeoutMs, QStringLiteral("loading the reference")))
            return false;
        m_slot->loadedReference = m_referenceObject;
    }
    if (!m_libraryObject.isEmpty() && m_slot->loadedLibrary != m_libraryObject) {
        m_slot->loadedLibrary.clear();
        // cuBLAS loads in hundreds of milliseconds: once per sandbox.
        if (!sendToBaseline("load b " + symbol + ' ' + m_libraryObject.toLocal8Bit(),
                            m_options.cudaCallTimeoutMs * 3,
                            QStringLiteral("loading the library baseline")))
            return false;
        m_slot->loadedLibrary = m_libraryObject;
    }
    return true;
}

QByteArray CudaEvaluation::argumentRequests(int id, const PlacedBuffers &placed,
                                            const ShapeConfig &shape, bool candidateSlot,
                                            QString *error) const
{
    QByteArray requests = "args " + number(id) + ' ' + placed.argumentWords(m_task, shape);
    if (candidateSlot && m_geometry) {
        const std::optional<LaunchGeometry::Dims> dims = m_geometry->evaluate(shape, error);
        if (!dims)
            return {};
        requests += "\ndims " + number(id) + ' ' + LaunchGeometry::signatureCode(m_task);
        for (qint64 d : dims->grid)
            requests += ' ' + number(d);
        for (qint64 d : dims->block)
            requests += ' ' + number(d);
        requests += ' ' + number(dims->sharedBytes);
    }
    return requests;
}

bool CudaEvaluation::checkCorrectness()
{
    CorrectnessLoop loop(m_task, *m_reference, {m_result, m_failure, m_wrongDetail});
    CudaCorrectnessSession session(
        candidateProcess(), m_options,
        [this](const QByteArray &line, int timeoutMs, const QString &during,
               SandboxProcess::Reply *reply) { return send(line, timeoutMs, during, reply); },
        [this](const PlacedBuffers &placed, const ShapeConfig &shape, QString *error) {
            return argumentRequests(0, placed, shape, true, error);
        });
    m_correct = loop.run(session);
    return m_correct;
}

// Why the loop stopped, as the evaluation's failure or wrong answer. A failed request was
// recorded by send() already.
void CudaEvaluation::recordTimingFailure(const CudaTimingSession &session, bool cancelled)
{
    for (const auto &[id, detail] : session.flags())
        addFlag(id, detail);
    if (cancelled) {
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during timing")};
    } else if (m_failure) {
        return;
    } else if (!session.harnessFailure().isEmpty()) {
        m_failure = Failure{Verdict::Crash, session.harnessFailure()};
    } else {
        m_correct = false;
        m_wrongDetail = session.wrongDetail();
    }
}

void CudaEvaluation::measureTiming()
{
    QElapsedTimer timer;
    timer.start();
    const ShapeConfig shape = m_task.timingShapes.contains(Backend::Cuda)
                                  ? m_task.timingShapes.value(Backend::Cuda)
                                  : m_task.correctnessShapes.last();
    const std::shared_ptr<const FreshInputs> inputs = FreshInputs::forRun(m_task, m_secret);
    auto send = [this](bool baseline, const QByteArray &line, int timeoutMs, const QString &during,
                       SandboxProcess::Reply *reply) {
        return deliver(baseline, line, timeoutMs, during, reply);
    };
    auto arguments = [this, &shape](int id, const PlacedBuffers &placed, bool candidateSlot,
                                    QString *error) {
        return argumentRequests(id, placed, shape, candidateSlot, error);
    };
    auto failStage = [&] {
        addStage(stageName("timing"), false, timer.nsecsElapsed() / 1e6,
                 m_failure ? m_failure->message : m_wrongDetail);
    };
    if (!loadBaselines()) {
        failStage();
        return;
    }
    CudaTimingSession session(m_options, m_task, shape, *inputs,
                              {candidateProcess(), m_slot->baselineProcess()}, send, arguments,
                              !m_libraryObject.isEmpty(), timedInputSalt());
    if (!session.setUp()) {
        recordTimingFailure(session, false);
        failStage();
        return;
    }
    // From the calibration to the last timed call no spare sandbox starts: a context coming up
    // on the GPU shows in the candidate's times (verifier.md). What comes before overlaps it.
    // Quiet before the lock, so no spare of ours comes up while another process times. The
    // correctness hold goes first: a spare's start takes the lock shared and must not wait
    // behind another process's timing that waits for us.
    m_gpuLock.reset();
    const CudaSandboxSlot::Quiet quiet(*m_slot);
    // Nor does any other Kiln process's work run on this GPU meanwhile.
    if (!lockGpu(DeviceLock::Mode::Exclusive)) {
        failStage();
        return;
    }
    m_lockWaitMs = m_gpuLock->waitedMs();
    // From the calibration on: a core that halts while the engine waits for a reply wakes late,
    // and only long calls let it halt (honest 0.3 ms kernels left 1.1-1.5 ms per call that no
    // reported time explained on an H100).
    std::optional<CoreWaker> awake;
    if (CoreWaker::wanted())
        awake.emplace();
    if (!session.calibrateTimers()) {
        recordTimingFailure(session, false);
        failStage();
        return;
    }
    AdaptiveTiming::Rules rules = m_options.timingRules(
        3, 10, 2000, m_options.cudaTargetRelativeSem, m_options.cudaTimingBudgetMs);
    rules.cycle = inputs->distributionCount();
    const double setupMs = timer.nsecsElapsed() / 1e6 - m_lockWaitMs;
    // Every call is checked in full on the device, at device speed: all count in the budget.
    const Timed timed = timeUntilUndisturbed(session, rules);
    if (!timed.outcome.ok) {
        recordTimingFailure(session, timed.outcome.cancelled);
        failStage();
        return;
    }
    for (const auto &[id, detail] : session.flags())
        addFlag(id, detail);
    reportTiming(session, timed, shape, timer.nsecsElapsed() / 1e6, setupMs, quiet.waitedMs());
}

// The loop, again with new calls while only the wall clock's gap would flag and another process
// was busy on the GPU meanwhile (time-slicing widens the gap, and only that evidence).
CudaEvaluation::Timed CudaEvaluation::timeUntilUndisturbed(CudaTimingSession &session,
                                                           const AdaptiveTiming::Rules &rules)
{
    Timed timed;
    int first = 0;
    while (true) {
        const qsizetype from = session.gaps().size();
        const quint64 since = GpuActivity::nowMicroseconds();
        session.clockBound().restart();
        RenumberedSession calls(session, first);
        timed.outcome = TimingLoop::run(calls, rules, 0, m_cancel);
        ++timed.tries;
        if (!timed.outcome.ok)
            return timed;
        first += timed.outcome.calls + 1; // and the final check's call
        timed.sideStreams = sideStreams(session, from, timed.outcome.candidate.median);
        // The tail is work of this context alone: no other process explains it. A wall-clock
        // gap or time the engine saw beyond every reported call is what another context's time
        // slices leave (1-1.6 ms a call beside a busy process on an H100). NVML is asked (it
        // can take 1.5 s for its samples) only where a verdict may rest on its answer: a smaller
        // engine-clock gap is evidence either way, and waiting for it cost honest host-code
        // reduce_sum candidates 1.5 s of every timing on an H100.
        const bool clockGap = largeClockGap(session.clockBound().judge());
        const bool unexplained = timed.sideStreams.gap || clockGap;
        timed.disturbed = !timed.sideStreams.tail && unexplained && othersWereBusy(since, timed);
        // A stall of the engine's own host (its thread descheduled while a search's compiles
        // fill the cores) passes with its loop; a clock slowed inside the candidate's process
        // is slow in every loop. Since loops stop at the rule's minimum (a handful of requests,
        // not about 25) one stalled request weighs more: an injected racy matmul was blocked
        // as timer_inconsistent in a search on an H200.
        const bool hostStall = clockGap && !timed.disturbed && timed.tries == 1;
        if ((!timed.disturbed && !hostStall) || timed.tries > kDisturbedRetries || m_cancel.load())
            return timed;
    }
}

CudaEvaluation::SideStreams CudaEvaluation::sideStreams(const CudaTimingSession &session,
                                                        qsizetype from, double candidateMs) const
{
    SideStreams found;
    found.tailMs = TimingStats::medianOf(session.tails().mid(from));
    found.gapMs = TimingStats::medianOf(session.gaps().mid(from));
    found.tail = found.tailMs > std::max(kSideStreamTailMs, 0.1 * candidateMs);
    found.gap = found.gapMs > std::max(kSideStreamGapMs, 0.5 * candidateMs);
    return found;
}

// Whether NVML saw a process other than ours busy on this GPU since the window began; what it
// saw, or why it could not tell, goes into `timed`.
bool CudaEvaluation::othersWereBusy(quint64 sinceMicroseconds, Timed &timed) const
{
    GpuActivity activity;
    const QString uuid = m_slot->device().uuid;
    activity.waitForSamples(uuid, GpuActivity::nowMicroseconds(), kSampleWaitMs);
    const QList<GpuActivity::Busy> others =
        activity.othersSince(uuid, sinceMicroseconds, ownPids());
    for (const GpuActivity::Busy &busy : others) {
        auto seen = std::find_if(timed.others.begin(), timed.others.end(),
                                 [&](const GpuActivity::Busy &b) { return b.pid == busy.pid; });
        if (seen == timed.others.end())
            timed.others.append(busy);
        else
            seen->smUtil = std::max(seen->smUtil, busy.smUtil);
    }
    timed.activityError = activity.error();
    // Processes that merely hold a context (no sampling) excuse nothing.
    return activity.error().isEmpty() && !others.isEmpty();
}

QSet<qint64> CudaEvaluation::ownPids() const
{
    QSet<qint64> pids{qint64(::getpid())};
    if (!m_admission.admitted)
        pids.insert(qint64(m_slot->process().pid()));
    else if (m_slot->launcherRunning())
        pids.insert(qint64(m_slot->launcherProcess().pid()));
    if (m_slot->baselineRunning())
        pids.insert(m_slot->baselineProcess().pid());
    return pids;
}

// Work the harness stream's events did not see: the device still busy after the stop event,
// or wall time far beyond the event time. A gap that another process's work explained in every
// run is no finding against the candidate, only a less certain time.
void CudaEvaluation::judgeSideStreams(const Timed &timed, QJsonObject &data)
{
    const SideStreams &found = timed.sideStreams;
    if (found.tail || (found.gap && !timed.disturbed)) {
        addFlag(QStringLiteral("side_stream_work"),
                QStringLiteral("events %1 ms; device busy %2 ms longer, wall clock %3 ms longer")
                    .arg(m_result.candidateTiming.median, 0, 'g', 3)
                    .arg(found.tailMs, 0, 'g', 3)
                    .arg(found.gapMs, 0, 'g', 3));
    } else if (timed.disturbed) {
        const QString others = GpuActivity::describe(timed.others);
        m_result.disturbance = QStringLiteral("disturbed by %1 during timing").arg(others);
        addFlag(QStringLiteral("timing_disturbed"), others);
    }
    data.insert(QStringLiteral("median_tail_ms"), found.tailMs);
    data.insert(QStringLiteral("median_wall_gap_ms"), found.gapMs);
    data.insert(QStringLiteral("timing_runs"), timed.tries);
    if (!timed.others.isEmpty())
        data.insert(QStringLiteral("other_processes"), GpuActivity::toJson(timed.others));
    if (!timed.activityError.isEmpty())
        data.insert(QStringLiteral("gpu_activity"), timed.activityError);
}

void CudaEvaluation::reportTiming(const CudaTimingSession &session, const Timed &timed,
                                  const ShapeConfig &shape, double stageMs, double setupMs,
                                  double quietWaitMs)
{
    const TimingLoop::Outcome &outcome = timed.outcome;
    EvaluationRecorder::recordTimes(m_result, outcome.candidate, outcome.baseline,
                                    outcome.candidateSamples, outcome.baselineSamples,
                                    outcome.kinds);
    const TimingStats &candidateStats = m_result.candidateTiming;
    const TimingStats &baselineStats = m_result.baselineTiming;
    const double bandwidth = m_slot->bandwidth(m_options.cudaCallTimeoutMs);
    const double peakFlops = m_slot->device().peakFp32FlopsPerSecond();
    const double bytes = m_task.bytesMoved(shape);
    const double flops = m_task.flops(shape);
    const double floorMs =
        EvaluationRecorder::judgeRoofline(m_result, bytes, flops, bandwidth, peakFlops,
                                          m_options.cudaBandwidthSlack, m_options.largeSpeedup);
    QJsonObject data{{QStringLiteral("shape"), m_task.shapeLabel(shape)},
                     {QStringLiteral("candidate"), candidateStats.toJson()},
                     {QStringLiteral("baseline"), baselineStats.toJson()},
                     {QStringLiteral("stop"), AdaptiveTiming::stopName(outcome.stop)},
                     {QStringLiteral("fresh_inputs"), outcome.calls + 1},
                     {QStringLiteral("timer_overhead_ms"), session.timerOverheadMs()},
                     {QStringLiteral("floor_ms"), floorMs},
                     {QStringLiteral("bandwidth_gbps"), bandwidth / 1e9},
                     {QStringLiteral("peak_tflops"), peakFlops / 1e12},
                     {QStringLiteral("bytes"), bytes},
                     {QStringLiteral("flops"), flops},
                     {QStringLiteral("achieved_gbps"),
                      candidateStats.median > 0 ? bytes / candidateStats.median / 1e6 : 0.0},
                     {QStringLiteral("achieved_tflops"),
                      candidateStats.median > 0 ? flops / candidateStats.median / 1e9 : 0.0},
                     {QStringLiteral("device"), m_slot->device().name},
                     {QStringLiteral("device_index"), m_slot->device().index},
                     {QStringLiteral("iterations"), outcome.calls},
                     {QStringLiteral("setup_ms"), setupMs},
                     {QStringLiteral("quiet_wait_ms"), quietWaitMs},
                     {QStringLiteral("lock_wait_ms"), m_lockWaitMs},
                     {QStringLiteral("loop_ms"), outcome.loopMs}};
    judgeSideStreams(timed, data);
    // The engine's clock around the candidate's requests: time no reported event explains, in
    // request after request, may be a clock slowed inside the candidate's process. Here it is
    // evidence, not a verdict: honest kernels of 0.3 ms left 1.1-1.5 ms a call unexplained on an
    // H100, and the wall-clock gap (the sandbox's raw clock against the events) already catches
    // events that under-report.
    // A gap as large as the reported time itself (a fake of 2x or more), past what halted cores
    // ever left, stays a verdict while the cores are kept awake and no other process used the
    // GPU; beside one it is evidence only (the sandbox cannot start a process to fake that).
    const EngineClockBound::Finding bound = session.clockBound().judge();
    data.insert(QStringLiteral("unexplained_ms_per_call"), bound.unexplainedMsPerCall);
    if (bound.exceeded)
        addFlag(largeClockGap(bound) && CoreWaker::wanted() && !timed.disturbed
                    ? QStringLiteral("timer_inconsistent")
                    : QStringLiteral("engine_clock_gap"),
                bound.describe());
    const QJsonObject phases = session.phases();
    for (auto it = phases.begin(); it != phases.end(); ++it)
        data.insert(it.key(), it.value());
    if (outcome.library.n > 0) {
        data.insert(QStringLiteral("library_baseline"), outcome.library.toJson());
        if (candidateStats.median > 0.0)
            data.insert(QStringLiteral("speedup_vs_library"),
                        outcome.library.median / candidateStats.median);
    }
    addStage(stageName("timing"), true, stageMs,
             QStringLiteral("%1 ms vs reference %2 ms (n=%3, %4), speedup %5x")
                 .arg(candidateStats.median, 0, 'g', 4)
                 .arg(baselineStats.median, 0, 'g', 4)
                 .arg(candidateStats.n)
                 .arg(AdaptiveTiming::stopName(outcome.stop))
                 .arg(m_result.speedup.value_or(0.0), 0, 'f', 2),
             data);
}

SandboxProcess &CudaEvaluation::candidateProcess()
{
    return m_admission.admitted ? m_slot->launcherProcess() : m_slot->process();
}

bool CudaEvaluation::startCandidateProcess(QString *error)
{
    return m_admission.admitted ? m_slot->ensureLauncherStarted(error)
                                : m_slot->ensureStarted(error);
}

quint64 CudaEvaluation::timedInputSalt() const
{
    return secretDigest(m_secret, m_source.toUtf8());
}

void CudaEvaluation::annotateStage(const QString &stage, const QJsonObject &data)
{
    for (StageResult &result : m_result.stages)
        if (result.name == stage)
            for (auto it = data.begin(); it != data.end(); ++it)
                result.data.insert(it.key(), it.value());
}

void CudaEvaluation::scrubLauncher()
{
    if (m_restartSandbox || !m_candidateLoaded) {
        if (m_restartSandbox)
            m_slot->restartLauncher();
        return;
    }
    const qint64 pid = m_slot->launcherProcess().pid();
    const int judged = m_slot->launcherEvaluations();
    // The scrub writes the whole mirror and launches a kernel: like a correctness call, it must
    // not run inside another evaluation's timed window on this GPU.
    const DeviceLock hold(m_slot->device().lockName(), DeviceLock::Mode::Shared, &m_cancel);
    if (hold.cancelled()) {
        m_slot->restartLauncher();
        return;
    }
    // A kernel left running or faulting after the last call shows here, and is this
    // candidate's; a verdict it already earned stays.
    const std::optional<Failure> earlier = m_failure;
    SandboxProcess::Reply reply;
    const bool scrubbed =
        send("scrub", m_options.cudaCallTimeoutMs,
             QStringLiteral("the launcher's scrub after the candidate's calls"), &reply);
    if (earlier)
        m_failure = earlier;
    else if (!scrubbed && m_failure)
        m_correct = false;
    QJsonObject data{{QStringLiteral("launcher_pid"), pid},
                     {QStringLiteral("launcher_evaluation"), judged + 1},
                     {QStringLiteral("scrubbed"), scrubbed}};
    if (scrubbed)
        data.insert(QStringLiteral("scrub_ms"), reply.words.value(1).toDouble());
    annotateStage(stageName("correctness"), data);
    if (!scrubbed || m_restartSandbox)
        m_slot->restartLauncher();
    else
        m_slot->countLauncherEvaluation();
}

EvaluationResult CudaEvaluation::finish()
{
    m_gpuLock.reset();
    if (m_slot) {
        m_isolation = candidateProcess().isolation();
        // Single use: once candidate code ran in the process it ends with the evaluation. The
        // launcher is scrubbed instead, or replaced.
        if (m_admission.admitted)
            scrubLauncher();
        else if (m_candidateLoaded || m_restartSandbox)
            m_slot->restart();
        if (m_restartBaseline)
            m_slot->restartBaseline();
        else if (m_slot->baselineRunning())
            // The candidate's buffers are freed with its process only once the checker lets go.
            m_slot->baselineProcess().request("import -", m_options.cudaCallTimeoutMs);
    }
    EvaluationRecorder::conclude(
        m_result, {m_compiled, m_objectBuilt, m_correct, m_failure, m_wrongDetail, m_isolation});
    return m_result;
}

EvaluationResult CudaEvaluation::run()
{
    const CudaAvailability &gpu = m_pool.availability();
    if (!gpu.usable) {
        m_failure =
            EvaluationRecorder::verifierFailure(QStringLiteral("no usable GPU: ") + gpu.reason);
        addStage(stageName("compile"), false, 0.0, m_failure->message);
        return finish();
    }
    // Every GPU of one machine is assumed to be of one architecture for compilation; the
    // first device decides.
    m_architecture = gpu.devices.first().architecture();
    if (!compileCandidate()) {
        if (!m_failure && !m_compiled && m_wrongDetail.isEmpty())
            m_wrongDetail = QStringLiteral("compilation failed");
        return finish();
    }
    if (!compileBaselines())
        return finish();
    QString error;
    m_reference = m_references.get(m_task, m_secret, &error);
    if (!m_reference) {
        m_failure =
            EvaluationRecorder::verifierFailure(QStringLiteral("reference unavailable: ") + error);
        return finish();
    }
    CudaSandboxPool::Lease lease = m_pool.acquire(m_cancel);
    m_slot = lease.slot();
    if (!m_slot) {
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled while waiting for a GPU")};
        return finish();
    }
    if (!startCandidateProcess(&error)) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("cannot start the GPU sandbox: ") + error);
        m_slot = nullptr;
        return finish();
    }
    // Correctness calls of several candidates (of any Kiln process) may share this GPU; a
    // timing never shares it with anything of theirs.
    if (!lockGpu(DeviceLock::Mode::Shared) || !loadIntoSandbox()) {
        addStage(stageName("correctness"), false, 0.0,
                 m_failure ? m_failure->message : m_wrongDetail);
        return finish();
    }
    checkCorrectness();
    if (m_correct && !m_result.hasBlockingFlag() && !m_failure && m_options.runTiming &&
        !m_cancel.load())
        measureTiming();
    return finish();
}

} // namespace kiln
