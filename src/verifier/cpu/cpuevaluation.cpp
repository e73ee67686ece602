#include "verifier/cpu/cpuevaluation.h"

#include "sandbox/protocol.h"
#include "verifier/cpu/bandwidthprobe.h"
#include "verifier/cpu/cpuactivity.h"
#include "verifier/cpu/cpucorrectnesssession.h"
#include "verifier/cpu/cputimingsession.h"
#include "verifier/cpu/naiveharness.h"
#include "verifier/harness/adaptivetiming.h"
#include "verifier/harness/corewaker.h"
#include "verifier/harness/correctnessloop.h"
#include "verifier/harness/devicelock.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/freshinputs.h"
#include "verifier/harness/renumberedsession.h"
#include "verifier/harness/sandboxcompiler.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/staticscreen.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace kiln {

namespace {

constexpr double kIdleCpuFloorMs = 5.0;   // CPU the candidate may use between timed calls
constexpr const char *kCpuDevice = "cpu"; // every core: a compile anywhere disturbs a timing
constexpr int kTimingAttempts = 3;        // timing loops before a disturbed window is kept

QString stageName(const char *name)
{
    return QString::fromLatin1(name);
}

} // namespace

CpuEvaluation::CpuEvaluation(const VerifierOptions &options, CompileCache &cache,
                             ReferenceBank &references, BaselineSandboxes &baselines,
                             const Task &task, const QString &source, quint64 runSecret,
                             const std::atomic<bool> &cancel)
    : BackendEvaluation(Backend::Cpu), m_options(options), m_cache(cache), m_references(references),
      m_baselines(baselines), m_task(task), m_source(source),
      // The naive harness draws from a fixed seed, not from the run's secret.
      m_secret(options.lenient ? NaiveHarness::kFixedSeed : runSecret), m_cancel(cancel)
{
}

void CpuEvaluation::recordRequestFailure(const SandboxProcess::Reply &reply, const QString &during)
{
    using Status = SandboxProcess::Status;
    const SandboxProcess &box = *m_sandbox;
    switch (reply.status) {
    case Status::Ok:
        return;
    case Status::Error:
        m_failure = Failure{Verdict::Crash, QStringLiteral("sandbox error during %1: %2")
                                                .arg(during, QString::fromUtf8(reply.line))};
        return;
    case Status::TimedOut:
        m_failure =
            Failure{Verdict::Timeout, QStringLiteral("no answer during %1 within the time limit "
                                                     "(an endless loop?); the sandbox was killed")
                                          .arg(during)};
        return;
    case Status::Cancelled:
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during %1").arg(during)};
        return;
    case Status::Flooded:
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("wrote more than %1 MiB to stdout/stderr during %2")
                                .arg(m_options.sandbox.outputCapBytes >> 20)
                                .arg(during)};
        return;
    case Status::Died:
        break;
    }
    const QList<QByteArray> fatal = box.fatalLine().split(' ');
    const int signal = fatal.value(0) == "fatal" ? fatal.value(1).toInt() : box.termSignal();
    const int savedErrno = fatal.value(0) == "fatal" ? fatal.value(2).toInt() : 0;
    const QString end = box.describeEnd();
    if (fatal.value(0) == "resource" ||
        (box.exited() && box.exitCode() == sandbox::kExitResource)) {
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("an allocation failed under the %1 MiB address-space "
                                           "limit during %2")
                                .arg(m_options.sandbox.addressSpaceMb)
                                .arg(during)};
    } else if (signal == SIGXCPU) {
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("exceeded the CPU-time limit during %1").arg(during)};
    } else if (signal != 0 && savedErrno == ENOMEM) {
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("crashed right after an allocation failed (address-"
                                           "space limit %1 MiB) during %2: %3")
                                .arg(m_options.sandbox.addressSpaceMb)
                                .arg(during, end)};
    } else if (signal != 0) {
        QString text = QStringLiteral("crashed during %1: signal %2 (%3)")
                           .arg(during)
                           .arg(signal)
                           .arg(QString::fromLocal8Bit(::strsignal(signal)));
        if (fatal.value(0) == "fatal" && (signal == SIGSEGV || signal == SIGBUS))
            text += QStringLiteral(" at address 0x%1")
                        .arg(QString::number(fatal.value(3).toULongLong(), 16));
        const QString tail = QString::fromUtf8(box.stderrTail()).trimmed();
        if (!tail.isEmpty())
            text += QStringLiteral("; stderr: ") +
                    tail.right(200).replace(QLatin1Char('\n'), QLatin1String(" | "));
        m_failure = Failure{Verdict::Crash, text};
    } else {
        // exit(0) included: ending the process is never a way to pass.
        m_failure = Failure{
            Verdict::Crash,
            QStringLiteral("the candidate ended the process during %1 (%2)").arg(during, end)};
    }
}

QList<CheatFlag> CpuEvaluation::screen(const CompiledArtifact &artifact)
{
    QElapsedTimer screenTimer;
    screenTimer.start();
    const ElfSymbols symbols = ElfSymbols::read(artifact.object);
    QList<CheatFlag> flags;
    if (!m_options.lenient) // the naive harness screens nothing
        flags = StaticScreen::screen(m_task, artifact.preprocessed, CompileCache::sourceName(),
                                     symbols);
    // A line marker written in the source would make the preprocessed text hide the code after
    // it from the screen.
    if (const QList<int> lines = StaticScreen::lineDirectiveLines(m_source);
        !lines.isEmpty() && !m_options.lenient)
        flags.append(FlagCatalog::make(QStringLiteral("line_directive"), lines));
    m_result.flags.append(flags);
    int blocking = 0;
    for (const CheatFlag &flag : flags)
        blocking += flag.blocking ? 1 : 0;
    QJsonArray ids;
    for (const CheatFlag &flag : flags)
        ids.append(flag.id);
    addStage(
        stageName("screen"), blocking == 0, screenTimer.nsecsElapsed() / 1e6,
        m_options.lenient ? QStringLiteral("skipped (lenient verifier)")
        : flags.isEmpty()
            ? QStringLiteral("no findings")
            : QStringLiteral("%1 finding(s), %2 blocking").arg(flags.size()).arg(blocking),
        {{QStringLiteral("flags"), ids},
         {QStringLiteral("symbols_read"), symbols.valid},
         {QStringLiteral("imports"), QJsonArray::fromStringList(symbols.undefined.mid(0, 64))}});
    m_objectBuilt = symbols.valid;
    return flags;
}

// The compiler did not finish (it crashed, timed out or was cancelled).
void CpuEvaluation::recordCompileFailure(const SandboxCompiler::Outcome &outcome)
{
    if (outcome.status == SandboxProcess::Status::Error) {
        m_failure = Failure{Verdict::Crash, outcome.error};
    } else {
        recordRequestFailure({outcome.status, {}, {}}, QStringLiteral("compilation"));
        if (m_failure && m_failure->verdict == Verdict::Timeout)
            m_failure =
                Failure{Verdict::CompileError, QStringLiteral("compilation took longer than %1 s")
                                                   .arg(m_options.compileTimeoutMs / 1000)};
    }
    addStage(stageName("compile"), false, outcome.ms, m_failure->message);
}

// The compile stage's one line: how it was built, or the first error.
QString CpuEvaluation::compileDetail(const CompiledArtifact &artifact,
                                     const QJsonArray &diagnostics)
{
    if (artifact.ok)
        return artifact.cached
                   ? QStringLiteral("cached")
                   : QStringLiteral("compiled in %1 ms").arg(artifact.compileMs, 0, 'f', 0);
    QString detail;
    for (const QJsonValue &d : diagnostics) {
        if (d[QStringLiteral("severity")].toString().contains(QLatin1String("error"))) {
            const int line = d[QStringLiteral("line")].toInt();
            detail = (line > 0 ? QStringLiteral("line %1: ").arg(line) : QString()) +
                     d[QStringLiteral("message")].toString();
            break;
        }
    }
    if (detail.isEmpty()) // an error without a message: the log's last line says more
        detail = artifact.log.trimmed().section(QLatin1Char('\n'), -1).left(200);
    return detail;
}

// A link failure counts as the flag's doing only when a blocking flag names one of the
// unresolved symbols (an unlinked forbidden library); a missing entry stays a compile error.
bool CpuEvaluation::linkFailureExplained(const QJsonArray &diagnostics,
                                         const QList<CheatFlag> &flags)
{
    bool explained = false;
    for (const QJsonValue &d : diagnostics) {
        const QString message = d[QStringLiteral("message")].toString();
        if (!message.startsWith(QLatin1String("undefined reference to ")))
            continue;
        const QString symbol = message.mid(23).section(QLatin1Char('('), 0, 0);
        for (const CheatFlag &flag : flags)
            explained = explained || (flag.blocking && flag.message.contains(symbol));
    }
    return explained;
}

bool CpuEvaluation::screenAndCompile()
{
    const QString shim = EntryShim::source(m_task);
    const SandboxCompiler::Outcome outcome = SandboxCompiler::compile(
        *m_sandbox, m_cache, m_options, m_task.name, m_source, shim, &m_cancel);
    const CompiledArtifact &artifact = outcome.artifact;
    const QList<CheatFlag> flags = screen(artifact);
    if (outcome.status != SandboxProcess::Status::Ok) {
        recordCompileFailure(outcome);
        return false;
    }
    const QJsonArray diagnostics =
        SandboxCompiler::parseDiagnostics(artifact.log, CompileCache::sourceName());
    const QString detail = compileDetail(artifact, diagnostics);
    addStage(stageName("compile"), artifact.ok, outcome.ms, detail,
             {{QStringLiteral("cached"), artifact.cached},
              {QStringLiteral("exit_code"), artifact.exitCode},
              {QStringLiteral("compiler_ms"), artifact.compileMs},
              {QStringLiteral("diagnostics"), diagnostics}});
    m_compiled = artifact.ok;
    if (!artifact.ok) {
        m_wrongDetail = detail;
        m_objectBuilt = m_objectBuilt && linkFailureExplained(diagnostics, flags);
    }
    m_sharedObject = artifact.sharedObject;
    return artifact.ok;
}

bool CpuEvaluation::loadCandidate()
{
    const QString path = m_sandbox->stage(m_sharedObject);
    const SandboxProcess::Reply reply =
        m_sandbox->request("load c " + QByteArray(EntryShim::kSymbol) + ' ' + path.toLocal8Bit(),
                           m_options.callTimeoutMs, &m_cancel);
    if (reply.status == SandboxProcess::Status::Error) {
        // Link-level rejection: with --no-undefined this is rare, but say why.
        m_compiled = false;
        m_wrongDetail = QStringLiteral("cannot load: ") + QString::fromUtf8(reply.words.join(' '));
        return false;
    }
    if (reply.status != SandboxProcess::Status::Ok) {
        recordRequestFailure(reply, QStringLiteral("loading (static initialisers)"));
        return false;
    }
    return true;
}

bool CpuEvaluation::checkCorrectness()
{
    CorrectnessLoop loop(m_task, *m_reference, {m_result, m_failure, m_wrongDetail});
    CpuCorrectnessSession session(
        *m_sandbox, m_options, m_task, m_cancel,
        [this](const SandboxProcess::Reply &reply, const QString &during) {
            recordRequestFailure(reply, during);
        });
    m_correct = loop.run(session, m_referenceMs);
    return m_correct;
}

// Why the loop stopped, as the evaluation's failure or wrong answer.
QString CpuEvaluation::describeBaselineFailure(const SandboxProcess::Reply &reply,
                                               const SandboxProcess &baseline)
{
    if (reply.status == SandboxProcess::Status::TimedOut)
        return QStringLiteral("no answer within the time limit");
    if (reply.status == SandboxProcess::Status::Died)
        return baseline.describeEnd();
    return QString::fromUtf8(reply.line);
}

void CpuEvaluation::recordTimingFailure(const CpuTimingSession &session, bool cancelled,
                                        const SandboxProcess &baseline)
{
    for (const auto &[id, detail] : session.flags())
        addFlag(id, detail);
    const auto &failure = session.failure();
    if (cancelled || m_cancel.load() ||
        (failure && failure->reply.status == SandboxProcess::Status::Cancelled)) {
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during timing")};
    } else if (const auto &failed = session.failure()) {
        if (failed->reference)
            m_failure = EvaluationRecorder::verifierFailure(
                QStringLiteral("the baseline's sandbox (reference code only) failed during %1: %2")
                    .arg(failed->during, describeBaselineFailure(failed->reply, baseline)));
        else
            recordRequestFailure(failed->reply, failed->during);
    } else {
        m_correct = false;
        m_wrongDetail = session.wrongDetail();
    }
}

void CpuEvaluation::measureTiming()
{
    QElapsedTimer timer;
    timer.start();
    const Task &task = m_task;
    const ShapeConfig &shape = m_reference->timingShape;
    auto failStage = [&](const QString &text) {
        addStage(stageName("timing"), false, timer.nsecsElapsed() / 1e6, text);
    };
    // The baseline's own sandbox: the reference alone, in a process no candidate code enters.
    QString error;
    std::unique_ptr<BaselineSandboxes::Baseline> baseline =
        m_baselines.take(m_reference->referenceObject, m_cancel, &error);
    if (!baseline) {
        m_failure = m_cancel.load()
                        ? Failure{Verdict::Timeout, QStringLiteral("cancelled during timing")}
                        : EvaluationRecorder::verifierFailure(
                              QStringLiteral("cannot start the baseline: ") + error);
        failStage(m_failure->message);
        return;
    }
    const std::shared_ptr<const FreshInputs> inputs = FreshInputs::forRun(task, m_secret);
    CpuTimingSession session(m_options, task, shape, *inputs, *m_sandbox, *baseline->process,
                             m_cancel);
    auto baselineHealthy = [&] { return !session.failure() || !session.failure()->reference; };
    if (!session.setUp()) {
        recordTimingFailure(session, false, *baseline->process);
        m_baselines.give(std::move(baseline), baselineHealthy());
        failStage(m_failure ? m_failure->message : m_wrongDetail);
        return;
    }
    AdaptiveTiming::Rules rules =
        m_options.timingRules(m_options.warmupTrials, m_options.minTrials, m_options.maxTrials,
                              m_options.targetRelativeSem, m_options.timingBudgetMs);
    rules.cycle = inputs->distributionCount();
    const double setupMs = timer.nsecsElapsed() / 1e6;
    CpuActivity activity({qint64(m_sandbox->pid()), qint64(baseline->process->pid())});
    std::optional<CoreWaker> awake;
    if (CoreWaker::wanted())
        awake.emplace();
    const TimingLoop::Outcome outcome = timeUndisturbed(session, rules, activity);
    awake.reset();
    if (!outcome.ok)
        recordTimingFailure(session, outcome.cancelled, *baseline->process);
    m_baselines.give(std::move(baseline), baselineHealthy() && !outcome.cancelled);
    if (!outcome.ok) {
        failStage(m_failure ? m_failure->message : m_wrongDetail);
        return;
    }
    for (const auto &[id, detail] : session.flags())
        addFlag(id, detail);
    reportTiming(session, outcome, shape, timer.nsecsElapsed() / 1e6, setupMs);
}

// The timing loop, repeated (kTimingAttempts in all) while other processes of the machine used
// the CPU during it: their work is never the candidate's. A window that stays disturbed is kept,
// with the finding in the result (an advisory flag, never a verdict). An undisturbed window whose
// clocks disagree is timed again too: only a gap in the last attempt is the candidate's.
TimingLoop::Outcome CpuEvaluation::timeUndisturbed(CpuTimingSession &session,
                                                   const AdaptiveTiming::Rules &rules,
                                                   CpuActivity &activity)
{
    TimingLoop::Outcome outcome;
    int first = 0;
    for (int attempt = 1; attempt <= kTimingAttempts; ++attempt) {
        // The request clocks of this attempt alone are checked (timer_inconsistent).
        m_engineMsBefore = session.engineMs();
        m_explainedMsBefore = session.explainedMs();
        session.clockBound().restart();
        activity.start();
        RenumberedSession calls(session, first);
        outcome = TimingLoop::run(calls, rules, 0, m_cancel);
        first += outcome.calls + 1; // and the final check's call
        const CpuActivity::Finding finding = activity.finish();
        m_disturbances.append(finding.describe());
        if (!outcome.ok)
            return outcome;
        if (finding.disturbed) {
            if (attempt == kTimingAttempts) {
                m_result.disturbance = finding.describe();
                addFlag(QStringLiteral("timing_disturbed"), finding.describe());
            }
            continue;
        }
        // A slowed clock is slow in every attempt; a stall of the machine that no process
        // explains (a host's hiccup, a neighbour outside our view) passes with the attempt.
        m_clockGap = clockGap(session);
        if (m_clockGap.isEmpty() || attempt == kTimingAttempts)
            return outcome;
        m_clockGapsTimedAgain.append(m_clockGap);
    }
    return outcome;
}

// Evidence that the engine's clock saw time the attempt's reported calls do not explain; empty
// when the clocks agree. In total: time the engine saw pass that neither the reported calls nor
// the requests' untimed part explain (generous margins: a busy machine must not trip it). Call by
// call too: a clock slowed from inside the candidate's process leaves a little unexplained time
// in every request, under the total's margins.
QString CpuEvaluation::clockGap(const CpuTimingSession &session) const
{
    const double explainedMs = session.explainedMs() - m_explainedMsBefore;
    const double unexplainedMs = session.engineMs() - m_engineMsBefore - explainedMs;
    if (unexplainedMs > std::max(100.0, 2.0 * explainedMs))
        return QStringLiteral("%1 ms unaccounted for").arg(unexplainedMs, 0, 'f', 0);
    const EngineClockBound::Finding bound = session.clockBound().judge();
    return bound.exceeded ? bound.describe() : QString();
}

void CpuEvaluation::reportTiming(const CpuTimingSession &session,
                                 const TimingLoop::Outcome &outcome, const ShapeConfig &shape,
                                 double stageMs, double setupMs)
{
    const Task &task = m_task;
    EvaluationRecorder::recordTimes(m_result, outcome.candidate, outcome.baseline,
                                    outcome.candidateSamples, outcome.baselineSamples,
                                    outcome.kinds);
    const TimingStats &candidateStats = m_result.candidateTiming;
    const TimingStats &baselineStats = m_result.baselineTiming;
    const double bandwidth = BandwidthProbe::memoryBytesPerSecond(
        m_cache.directory() + QStringLiteral("/memory-bandwidth-") +
        CompileCache::compilerIdentity(m_options.compiler).section(QLatin1Char('|'), -1));
    const double floorMs = EvaluationRecorder::judgeRoofline(
        m_result, task.bytesMoved(shape), task.flops(shape), bandwidth,
        BandwidthProbe::peakFlopsPerSecond(), m_options.bandwidthSlack, m_options.largeSpeedup);
    // The clocks of the attempt that counted; in a window other processes disturbed, their
    // work explains any gap.
    if (m_result.disturbance.isEmpty() && !m_clockGap.isEmpty())
        addFlag(QStringLiteral("timer_inconsistent"), m_clockGap);
    const EngineClockBound::Finding bound = session.clockBound().judge();
    // Threads of the candidate working while it waited for the next call: work hidden from the
    // timer, or a helper slowing the baseline down. An idle OpenMP pool uses next to nothing.
    // Measured against the baseline's process, which runs the same requests without candidate
    // code: the sandbox's own share between calls is not the candidate's.
    const double excessIdleMs = session.idleCpuMs() - session.baselineIdleCpuMs();
    if (excessIdleMs > std::max(kIdleCpuFloorMs, 0.5 * session.idleWallMs()))
        addFlag(QStringLiteral("threads_left_running"),
                QStringLiteral("%1 ms of CPU used between calls, in %2 ms of waiting (the "
                               "baseline's process: %3 ms)")
                    .arg(session.idleCpuMs(), 0, 'f', 1)
                    .arg(session.idleWallMs(), 0, 'f', 1)
                    .arg(session.baselineIdleCpuMs(), 0, 'f', 1));
    const QJsonObject data{
        {QStringLiteral("shape"), task.shapeLabel(shape)},
        {QStringLiteral("candidate"), candidateStats.toJson()},
        {QStringLiteral("baseline"), baselineStats.toJson()},
        {QStringLiteral("stop"), AdaptiveTiming::stopName(outcome.stop)},
        {QStringLiteral("fresh_inputs"), outcome.calls + 1},
        {QStringLiteral("baseline_process"), QStringLiteral("separate")},
        {QStringLiteral("timer_overhead_ns"), session.timerOverheadNs()},
        {QStringLiteral("floor_ms"), floorMs},
        {QStringLiteral("bandwidth_gbps"), bandwidth / 1e9},
        {QStringLiteral("peak_tflops"), BandwidthProbe::peakFlopsPerSecond() / 1e12},
        {QStringLiteral("bytes"), task.bytesMoved(shape)},
        {QStringLiteral("flops"), task.flops(shape)},
        {QStringLiteral("engine_ms"), session.engineMs()},
        {QStringLiteral("explained_ms"), session.explainedMs()},
        {QStringLiteral("unexplained_ms_per_call"), bound.unexplainedMsPerCall},
        {QStringLiteral("reported_ms"), session.timedCallsMs()},
        {QStringLiteral("scale_calls"), session.scaleCalls()},
        {QStringLiteral("idle_cpu_ms"), session.idleCpuMs()},
        {QStringLiteral("idle_wall_ms"), session.idleWallMs()},
        {QStringLiteral("baseline_idle_cpu_ms"), session.baselineIdleCpuMs()},
        {QStringLiteral("setup_ms"), setupMs},
        {QStringLiteral("loop_ms"), outcome.loopMs},
        {QStringLiteral("lock_wait_ms"), m_lockWaitMs},
        {QStringLiteral("attempts"), int(m_disturbances.size())},
        {QStringLiteral("other_processes"), QJsonArray::fromStringList(m_disturbances)},
        {QStringLiteral("clock_gaps_timed_again"),
         QJsonArray::fromStringList(m_clockGapsTimedAgain)}};
    addStage(stageName("timing"), true, stageMs,
             QStringLiteral("%1 ms vs baseline %2 ms (n=%3, %4), speedup %5")
                 .arg(candidateStats.median, 0, 'g', 4)
                 .arg(baselineStats.median, 0, 'g', 4)
                 .arg(candidateStats.n)
                 .arg(AdaptiveTiming::stopName(outcome.stop))
                 .arg(EvaluationRecorder::speedupText(m_result)),
             data);
}

// --verifier lenient: correctness and timing as a naive harness does them (NaiveHarness).
void CpuEvaluation::judgeNaively()
{
    QElapsedTimer timer;
    timer.start();
    NaiveHarness harness(*m_sandbox, m_options, m_task, m_cancel,
                         [this](const SandboxProcess::Reply &reply, const QString &during) {
                             recordRequestFailure(reply, during);
                         });
    const NaiveHarness::Outcome outcome =
        harness.run(m_reference->referenceObject, m_options.runTiming && !m_cancel.load());
    m_correct = outcome.ran && outcome.correct;
    if (!outcome.ran && !m_failure)
        m_failure = Failure{Verdict::Crash, outcome.detail};
    if (outcome.ran && !outcome.correct)
        m_wrongDetail = outcome.detail;
    const QString shape = m_task.shapeLabel(ReferenceBank::timingShape(m_task));
    const QJsonObject lenient{{QStringLiteral("verifier"), QStringLiteral("lenient")},
                              {QStringLiteral("shape"), shape},
                              {QStringLiteral("seed"), double(NaiveHarness::kFixedSeed)}};
    QJsonObject data = lenient;
    data.insert(QStringLiteral("check"), outcome.check.toJson());
    addStage(stageName("correctness"), m_correct, timer.nsecsElapsed() / 1e6 + m_referenceMs,
             m_failure ? m_failure->message : outcome.detail, data);
    if (!m_correct || outcome.candidate.n == 0)
        return;
    EvaluationRecorder::recordTimes(
        m_result, outcome.candidate, outcome.reference,
        {outcome.candidate.trials.begin(), outcome.candidate.trials.end()},
        {outcome.reference.trials.begin(), outcome.reference.trials.end()});
    data = lenient;
    data.insert(QStringLiteral("candidate"), outcome.candidate.toJson());
    data.insert(QStringLiteral("baseline"), outcome.reference.toJson());
    addStage(stageName("timing"), true, timer.nsecsElapsed() / 1e6,
             QStringLiteral("%1 ms vs reference %2 ms (n=%3, same inputs every call), speedup %4x")
                 .arg(outcome.candidate.median, 0, 'g', 4)
                 .arg(outcome.reference.median, 0, 'g', 4)
                 .arg(outcome.candidate.n)
                 .arg(m_result.speedup.value_or(0.0), 0, 'f', 2),
             data);
}

EvaluationResult CpuEvaluation::cancelledWaiting()
{
    m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled while waiting for the CPU")};
    m_sandbox->kill();
    return finish();
}

EvaluationResult CpuEvaluation::finish()
{
    EvaluationRecorder::conclude(m_result,
                                 {m_compiled, m_objectBuilt, m_correct, m_failure, m_wrongDetail,
                                  m_sandbox ? m_sandbox->isolation() : QString()});
    return m_result;
}

EvaluationResult CpuEvaluation::run()
{
    QTemporaryDir work(m_options.workRoot + QStringLiteral("/kiln-sandbox-XXXXXX"));
    m_sandbox = std::make_unique<SandboxProcess>(m_options.sandbox);
    QString error;
    if (!work.isValid() ||
        !m_sandbox->start(work.path(), 1 << 20, m_options.startTimeoutMs, &error)) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("cannot start the sandbox: ") + error);
        addStage(stageName("compile"), false, 0.0, m_failure->message);
        return finish();
    }
    // Compiles and correctness calls of other candidates may overlap this one's, but never a
    // timing on this machine's CPU (verifier.md, "Measurement conditions").
    DeviceLock sharing(QString::fromLatin1(kCpuDevice), DeviceLock::Mode::Shared, &m_cancel);
    if (sharing.cancelled())
        return cancelledWaiting();
    if (!screenAndCompile())
        return finish();

    QElapsedTimer referenceTimer;
    referenceTimer.start();
    m_reference = m_references.get(m_task, m_secret, &error);
    if (!m_reference) {
        m_failure =
            EvaluationRecorder::verifierFailure(QStringLiteral("reference unavailable: ") + error);
        addStage(stageName("correctness"), false, referenceTimer.nsecsElapsed() / 1e6,
                 m_failure->message);
        return finish();
    }
    m_referenceMs = referenceTimer.nsecsElapsed() / 1e6;
    if (!loadCandidate()) {
        addStage(stageName("correctness"), false, 0.0,
                 m_failure ? m_failure->message : m_wrongDetail);
        return finish();
    }
    if (m_options.lenient) {
        sharing.release();
        // The naive harness times as it checks: all of it is a timed window.
        const DeviceLock timing(QString::fromLatin1(kCpuDevice), DeviceLock::Mode::Exclusive,
                                &m_cancel);
        if (timing.cancelled())
            return cancelledWaiting();
        judgeNaively();
    } else {
        checkCorrectness();
        sharing.release();
        if (m_correct && !m_result.hasBlockingFlag() && !m_failure && m_options.runTiming &&
            !m_cancel.load()) {
            const DeviceLock timing(QString::fromLatin1(kCpuDevice), DeviceLock::Mode::Exclusive,
                                    &m_cancel);
            if (timing.cancelled())
                return cancelledWaiting();
            m_lockWaitMs = timing.waitedMs();
            measureTiming();
        }
    }
    m_sandbox->request("quit", 500);
    m_sandbox->kill();
    return finish();
}

} // namespace kiln
