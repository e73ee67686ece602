#include "verifier/torch/torchevaluation.h"

#include "languages/kernellanguages.h"
#include "sandbox/elementcheck.h"
#include "sandbox/protocol.h"
#include "tasks/kernelbenchsource.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/harness/gpuactivity.h"
#include "verifier/harness/secretdigest.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/python/torchscreen.h"
#include "verifier/torch/torchaudit.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <future>
#include <unistd.h>

namespace kiln {

namespace {

constexpr qint64 kAlign = 256;
constexpr double kSideStreamGapMs = 0.1;
constexpr int kTimingAttempts = 3; // timing loops before a gap between the clocks is kept
// NVML renews each process's one sample up to about a second apart (GpuActivity::waitForSamples).
constexpr int kSampleWaitMs = 1500;

qint64 aligned(qint64 offset)
{
    return (offset + kAlign - 1) / kAlign * kAlign;
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

const KernelLanguage &languageOf(const VerifierOptions &options, const Task &task,
                                 const QString &source)
{
    const QString chosenId =
        task.candidateLanguage.isEmpty() ? options.torchLanguage : task.candidateLanguage;
    if (chosenId == QLatin1String("auto")) {
        const KernelLanguage *written = KernelLanguages::detect(source);
        return written ? *written : KernelLanguages::defaultLanguage();
    }
    const KernelLanguage *chosen = KernelLanguages::find(chosenId);
    return chosen ? *chosen : KernelLanguages::defaultLanguage();
}

AdaptiveTiming::Rules timingRules(const VerifierOptions &options)
{
    return options.timingRules(2, 10, options.torchMaxTrials, options.torchTargetRelativeSem,
                               options.torchTimingBudgetMs);
}

QString shapeText(const QJsonObject &entry)
{
    return QStringLiteral("%1 %2").arg(
        entry.value(QStringLiteral("dtype")).toString(),
        QString::fromUtf8(QJsonDocument(entry.value(QStringLiteral("shape")).toArray())
                              .toJson(QJsonDocument::Compact)));
}

// Why a candidate's output entry cannot be compared with the reference's: another shape or
// dtype, or a place outside its buffer (the reply is the candidate's, so it is checked before
// the engine reads a byte of it).
QString outputProblem(int index, const QJsonObject &expected, const QJsonObject &got,
                      qint64 bufferSize)
{
    const auto field = [](const QJsonObject &o, const char *key) {
        return o.value(QLatin1String(key));
    };
    if (field(expected, "shape") != field(got, "shape") ||
        field(expected, "kind") != field(got, "kind") ||
        field(expected, "dtype") != field(got, "dtype"))
        return QStringLiteral("output %1 is %2, the reference's %3")
            .arg(index)
            .arg(shapeText(got), shapeText(expected));
    const qint64 offset = field(got, "offset").toInteger(-1);
    const qint64 bytes = field(got, "bytes").toInteger(-1);
    if (bytes != field(expected, "bytes").toInteger() || offset < 0 || bytes < 0 ||
        offset > bufferSize - bytes)
        return QStringLiteral("output %1 was not where its process said it was").arg(index);
    return {};
}

} // namespace

TorchEvaluation::TorchEvaluation(const VerifierOptions &options, TorchBackend &backend,
                                 const Task &task, const QString &source, quint64 runSecret,
                                 const std::atomic<bool> &cancel)
    : BackendEvaluation(Backend::Torch), m_options(options), m_backend(backend), m_task(task),
      m_source(source), m_language(languageOf(options, task, source)), m_secret(runSecret),
      m_cancel(cancel), m_candidateTiming(timingRules(options)),
      m_eagerTiming(timingRules(options)), m_compiledTiming(timingRules(options))
{
}

quint64 TorchEvaluation::seed(int index) const
{
    // The candidate's own process derives its inputs from the seeds it is sent: they must not
    // give back the secret, so that the seeds of other calls stay unpredictable.
    const qint64 counter = index;
    return secretDigest(m_secret,
                        QByteArrayView(reinterpret_cast<const char *>(&counter), sizeof counter)) &
           0x7fffffffffffull;
}

void TorchEvaluation::chooseDevice()
{
    m_lockName = QStringLiteral("cpu");
    if (m_options.torchDevice == QLatin1String("cpu"))
        return;
    m_lockName = QStringLiteral("gpu-0");
    const CudaAvailability gpus = CudaDevices::probe(m_options);
    for (const CudaDevice &device : gpus.devices)
        if (device.index == 0) {
            m_lockName = device.lockName();
            m_gpuUuid = device.uuid;
            m_deviceMemory = device.memoryBytes;
        }
}

bool TorchEvaluation::planMemory(const TorchReference &reference)
{
    // At once on the device, about: the reference's kept set and its torch.compile copy, the
    // candidate's current set with its outputs, and two kept timed sets.
    constexpr qint64 kSetsAtOnce = 6;
    const qint64 bytes = reference.setBytes();
    const bool alone =
        m_deviceMemory > 0 && (bytes == 0 || kSetsAtOnce * bytes > m_deviceMemory / 2);
    m_memoryPlan = {{QStringLiteral("set_bytes"), bytes},
                    {QStringLiteral("device_bytes"), m_deviceMemory},
                    {QStringLiteral("device_alone"), alone}};
    return !alone || lockDevice(DeviceLock::Mode::Exclusive);
}

bool TorchEvaluation::lockDevice(DeviceLock::Mode mode)
{
    m_deviceLock.reset();
    m_deviceLock = std::make_unique<DeviceLock>(m_lockName, mode, &m_cancel);
    if (!m_deviceLock->cancelled())
        return true;
    const bool cpu = m_lockName == QLatin1String("cpu");
    m_failure =
        Failure{Verdict::Timeout, QStringLiteral("cancelled while waiting for the %1")
                                      .arg(cpu ? QStringLiteral("CPU") : QStringLiteral("GPU"))};
    return false;
}

bool TorchEvaluation::beginTimedWindow(TorchReference &reference)
{
    if (!lockDevice(DeviceLock::Mode::Exclusive))
        return false;
    m_lockWaitMs = m_deviceLock->waitedMs();
    m_ownPids = {qint64(::getpid()), qint64(m_candidate->process().pid()),
                 qint64(reference.process().process().pid())};
    m_timingSince = GpuActivity::nowMicroseconds();
    return true;
}

bool TorchEvaluation::request(TorchProcess &process, const QByteArray &line, int timeoutMs,
                              const QString &during, SandboxProcess::Reply *reply)
{
    *reply = process.request(line, timeoutMs, &m_cancel);
    using Status = SandboxProcess::Status;
    const QString tail = QString::fromUtf8(process.process().stderrTail().right(400)).trimmed();
    switch (reply->status) {
    case Status::Ok:
        return true;
    case Status::Error:
        // A JIT language's compiler (or the import of its module) failed: the candidate's
        // compile error, as a failed load_inline build is.
        if (reply->line.startsWith("err compile: ")) {
            m_failure = Failure{Verdict::CompileError,
                                QString::fromUtf8(reply->line.mid(13)) +
                                    (tail.isEmpty() ? QString() : QStringLiteral(" | ") + tail)};
            m_wrongDetail = m_failure->message;
            break;
        }
        m_failure = Failure{Verdict::Crash,
                            QStringLiteral("%1 failed: %2%3")
                                .arg(during, QString::fromUtf8(reply->line),
                                     tail.isEmpty() ? QString() : QStringLiteral(" | ") + tail)};
        break;
    case Status::TimedOut:
        m_failure = Failure{
            Verdict::Timeout,
            QStringLiteral("no answer during %1 within %2 s").arg(during).arg(timeoutMs / 1000)};
        break;
    case Status::Cancelled:
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during %1").arg(during)};
        break;
    case Status::Flooded:
        m_failure =
            Failure{Verdict::Resource, QStringLiteral("wrote more than %1 MiB of output during %2")
                                           .arg(process.process().settings().outputCapBytes >> 20)
                                           .arg(during)};
        break;
    case Status::Died:
        m_failure = Failure{Verdict::Crash, QStringLiteral("the process ended during %1 (%2)")
                                                .arg(during, process.process().describeEnd())};
        break;
    }
    return false;
}

bool TorchEvaluation::referenceRequest(TorchReference &reference, const QByteArray &line,
                                       int timeoutMs, const QString &during,
                                       SandboxProcess::Reply *reply)
{
    if (request(reference.process(), line, timeoutMs, during, reply))
        return true;
    if (reply->status != SandboxProcess::Status::Cancelled)
        failVerifier(m_failure->message);
    return false;
}

void TorchEvaluation::failVerifier(const QString &message)
{
    m_failure = EvaluationRecorder::verifierFailure(message);
}

bool TorchEvaluation::screen()
{
    QElapsedTimer timer;
    timer.start();
    const QStringList defects = KernelBenchSource::candidateDefects(m_source);
    const QList<CheatFlag> flags = TorchScreen::screen(m_task, m_source, m_language);
    m_result.flags.append(flags);
    QJsonArray ids;
    int blocking = 0;
    for (const CheatFlag &flag : flags) {
        ids.append(flag.id);
        blocking += flag.blocking ? 1 : 0;
    }
    addStage(QStringLiteral("screen"), blocking == 0 && defects.isEmpty(),
             timer.nsecsElapsed() / 1e6,
             !defects.isEmpty() ? defects.join(QStringLiteral("; "))
             : flags.isEmpty()
                 ? QStringLiteral("no findings")
                 : QStringLiteral("%1 finding(s), %2 blocking").arg(flags.size()).arg(blocking),
             {{QStringLiteral("flags"), ids}});
    if (!defects.isEmpty()) {
        m_wrongDetail = defects.join(QStringLiteral("; "));
        m_failure = Failure{Verdict::CompileError, m_wrongDetail};
        return false;
    }
    // Another language's candidate is not run: its compiler would find exec taken away (or
    // none at all), and the verdict would read as a crash rather than the mismatch.
    for (const CheatFlag &flag : flags) {
        if (flag.id == QLatin1String("language_mismatch")) {
            m_failure = Failure{Verdict::Flagged, flag.message};
            return false;
        }
    }
    return true;
}

QString TorchEvaluation::chooseExtensionFolder()
{
    if (m_language.build() == KernelLanguage::Build::OnFirstCall)
        return {}; // compiled by warmUp(), in the candidate's own process
    const TorchEnvironment &environment = m_backend.environment();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(m_source.toUtf8());
    hash.addData(QStringLiteral("|%1|%2|%3|%4")
                     .arg(environment.torchVersion, environment.architecture, environment.python,
                          m_options.torchInlineBuild)
                     .toUtf8());
    if (m_options.torchInlineBuild == QLatin1String("kiln"))
        hash.addData(inlineBuildDigest(environment.worker)); // a fix to Kiln's build rebuilds
    const QString key = QString::fromLatin1(hash.result().toHex().left(20));
    m_extensionDir = m_options.torchExtensionFolder() + QLatin1Char('/') + key;
    // The candidate's process may start before the build makes it: its sandbox's rules name it.
    QDir().mkpath(m_extensionDir);
    return key;
}

// The extension is built by a process of its own in a folder named by the source's hash, so
// the same source is built once (the import alone costs about a minute on a GPU machine) and a
// build never holds the GPU lock.
bool TorchEvaluation::build(const QString &key)
{
    if (key.isEmpty())
        return true;
    const QString marker = m_extensionDir + QStringLiteral("/kiln-built");
    QElapsedTimer timer;
    timer.start();
    QMutexLocker sameSource(&m_backend.buildLock(key));
    if (QFile::exists(marker)) {
        m_compiled = true;
        addStage(QStringLiteral("compile"), true, timer.nsecsElapsed() / 1e6,
                 QStringLiteral("extension cached (%1)").arg(key),
                 {{QStringLiteral("cached"), true}, {QStringLiteral("key"), key}});
        return true;
    }
    while (!m_backend.builds().tryAcquire(1, 100)) {
        if (m_cancel) {
            m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled before the build")};
            return false;
        }
    }
    const QSemaphoreReleaser release(m_backend.builds());
    const double queuedMs = timer.nsecsElapsed() / 1e6; // waiting for a build slot
    timer.restart();
    QString error;
    SandboxProcess::Reply reply;
    const std::unique_ptr<TorchProcess> started = startBuilder(&error);
    if (!started) {
        // Nothing of the candidate has run yet: not its failure.
        m_failure = m_cancel ? Failure{Verdict::Timeout, error}
                             : EvaluationRecorder::verifierFailure(
                                   QStringLiteral("cannot start the build: ") + error);
        return false;
    }
    TorchProcess &builder = *started;
    const QString path = builder.writeModule(QStringLiteral("candidate.py"), m_source);
    if (path.isEmpty()) {
        m_failure = Failure{Verdict::Crash, QStringLiteral("cannot write candidate.py in ") +
                                                builder.process().workDir()};
        return false;
    }
    const bool ok = request(builder, "build " + path.toUtf8(), m_options.torchBuildTimeoutMs,
                            QStringLiteral("the build"), &reply);
    const QString log = QString::fromUtf8(builder.process().stderrTail()).trimmed();
    builder.process().request("quit", 2000);
    const double ms = timer.nsecsElapsed() / 1e6;
    if (!ok) {
        // A killed build leaves torch's lock file and half its objects behind; the next
        // evaluation of this source starts afresh.
        builder.process().kill();
        QDir(m_extensionDir).removeRecursively();
        // An import that raises (a compiler error from load_inline, a NameError) is the
        // candidate's compile error; a timeout or a crash keeps its own verdict.
        if (reply.status == SandboxProcess::Status::Error) {
            m_failure = Failure{Verdict::CompileError, QString::fromUtf8(reply.line.mid(4))};
            m_wrongDetail = m_failure->message;
        }
        addStage(QStringLiteral("compile"), false, ms, m_failure->message,
                 {{QStringLiteral("log"), log.right(8000)}, {QStringLiteral("key"), key}});
        return false;
    }
    QFile built(marker);
    if (built.open(QIODevice::WriteOnly))
        built.write(QByteArray::number(ms));
    m_compiled = true;
    const QJsonObject report = TorchProcess::json(reply).object();
    addStage(QStringLiteral("compile"), true, ms,
             QStringLiteral("extension built in %1 s%2")
                 .arg(ms / 1000.0, 0, 'f', 1)
                 .arg(buildWays(report.value(QStringLiteral("builds")).toArray())),
             {{QStringLiteral("cached"), false},
              {QStringLiteral("queued_ms"), queuedMs},
              {QStringLiteral("started_ahead"), m_buildStartedAhead},
              {QStringLiteral("key"), key},
              {QStringLiteral("inline_build"), m_options.torchInlineBuild},
              {QStringLiteral("builds"), report.value(QStringLiteral("builds"))},
              {QStringLiteral("headers_made"), report.value(QStringLiteral("headers_made"))},
              {QStringLiteral("log"), log.right(4000)}});
    return true;
}

// The build's process: one started ahead (during the evaluation before) where one is waiting,
// else a new one; either way given the extension folder only now, and the next one starts.
std::unique_ptr<TorchProcess> TorchEvaluation::startBuilder(QString *error)
{
    // A build sees no GPU: its "device" only takes the extension folder and confines writes.
    TorchStandby::Acquired acquired =
        m_backend.buildStandby().acquire({m_options, m_backend.environment(), m_language,
                                          m_extensionDir, cpuLock(), QString(), &m_cancel});
    m_buildStartedAhead = acquired.startedAhead;
    *error = acquired.error;
    return std::move(acquired.process);
}

// The CPU device's lock, which a process's start holds shared (there it competes with a timed
// window); none on a GPU.
QString TorchEvaluation::cpuLock() const
{
    return m_lockName == QLatin1String("cpu") ? m_lockName : QString();
}

// Kiln's own part in a fast inline build: the files beside the worker that kiln_inline_build.py
// names OWN_FILES.
QByteArray TorchEvaluation::inlineBuildDigest(const QString &worker)
{
    QCryptographicHash digest(QCryptographicHash::Sha256);
    const QDir folder = QFileInfo(worker).dir();
    for (const char *name : {"kiln_inline_build.py", "kiln_inline_split.py", "kiln_inline_module.h",
                             "kiln_inline_launch.h", "kiln_tensor_bridge.cpp"}) {
        QFile file(folder.filePath(QLatin1String(name)));
        if (file.open(QIODevice::ReadOnly))
            digest.addData(file.readAll());
    }
    return digest.result();
}

// ", by Kiln's build" / ", by load_inline (Kiln's build declined: why)" for the compile stage.
QString TorchEvaluation::buildWays(const QJsonArray &builds)
{
    QStringList ways;
    for (const QJsonValue &value : builds) {
        const QJsonObject build = value.toObject();
        if (build.value(QStringLiteral("way")).toString() == QLatin1String("kiln"))
            ways << QStringLiteral("%1 by Kiln's build")
                        .arg(build.value(QStringLiteral("name")).toString());
        else
            ways << QStringLiteral("%1 by load_inline (Kiln's build declined: %2)")
                        .arg(build.value(QStringLiteral("name")).toString(),
                             build.value(QStringLiteral("reason")).toString().left(200));
    }
    return ways.isEmpty() ? QString() : QStringLiteral(": ") + ways.join(QStringLiteral("; "));
}

// The candidate's sandbox: python3 with torch imported, then its extension folder and, on a GPU,
// its CUDA context. Run beside the build; the context comes up outside the GPU's timed windows
// (under a shared hold of the device, as correctness calls). Nothing of the candidate runs in it
// yet. The process was started ahead, during the evaluation before, where one of the same
// recipe is waiting; the next one starts now.
bool TorchEvaluation::startCandidateProcess(QString *error)
{
    // A start competes with a timed window only where the device is the CPU; the device's
    // opening (the CUDA context) always waits for one to end.
    TorchStandby::Acquired acquired =
        m_backend.standby().acquire({m_options, m_backend.environment(), m_language, m_extensionDir,
                                     cpuLock(), m_lockName, &m_cancel});
    m_startTimes.insert(QStringLiteral("started_ahead"), acquired.startedAhead);
    m_startTimes.insert(QStringLiteral("process_start_ms"), acquired.startMs);
    m_startTimes.insert(QStringLiteral("device_open_ms"), acquired.openMs);
    m_startTimes.insert(QStringLiteral("worker_start_ms"), acquired.startPhases);
    if (!acquired.process) {
        *error = acquired.error;
        return false;
    }
    m_isolation = acquired.process->isolation();
    m_candidate = std::move(acquired.process);
    return true;
}

// The candidate's module imported in its process (its extensions loaded), ModelNew built.
bool TorchEvaluation::loadCandidate(TorchReference &reference)
{
    QElapsedTimer timer;
    timer.start();
    const QString path = m_candidate->writeModule(QStringLiteral("candidate.py"), m_source);
    if (path.isEmpty()) {
        m_failure = Failure{Verdict::Crash, QStringLiteral("cannot write candidate.py in ") +
                                                m_candidate->process().workDir()};
        return false;
    }
    SandboxProcess::Reply reply;
    if (!request(*m_candidate,
                 "load " + path.toUtf8() + ' ' + QByteArray::number(reference.initSeed()) + ' ' +
                     reference.initInputs(),
                 m_options.torchBuildTimeoutMs, QStringLiteral("building ModelNew"), &reply))
        return false;
    m_startTimes.insert(QStringLiteral("load_ms"), timer.nsecsElapsed() / 1e6);
    // The filter goes in once the module is imported: "seccomp=1" when it did. A JIT
    // language's goes in after its first call (warmUp).
    if (m_language.build() == KernelLanguage::Build::AtImport)
        m_isolation.replace(QStringLiteral("seccomp=after-import"),
                            QString::fromUtf8(reply.words.value(2)));
    m_loadedExtensions = QJsonDocument::fromJson(reply.words.value(3)).array();
    return true;
}

// Outputs travel as 32-bit words (floats as f32, integers and booleans as i32): floats meet the
// task's tolerance by the element rule of elementcheck.h, integers must be equal.
TorchEvaluation::Comparison TorchEvaluation::compare(const QJsonArray &expected,
                                                     const char *expectedBase,
                                                     const QJsonArray &got) const
{
    Comparison c;
    if (expected.size() != got.size()) {
        c.problem = QStringLiteral("forward returned %1 tensor(s), the reference %2")
                        .arg(got.size())
                        .arg(expected.size());
        return c;
    }
    const Tolerance tolerance = m_task.tolerance(QStringLiteral("f32"));
    const char *gotBase = m_candidate->buffer();
    qint64 index = 0;
    for (qsizetype o = 0; o < expected.size(); ++o) {
        const QJsonObject e = expected[o].toObject();
        const QJsonObject g = got[o].toObject();
        c.problem = outputProblem(int(o), e, g, m_candidate->bufferSize());
        if (!c.problem.isEmpty())
            return c;
        const bool integer = e.value(QStringLiteral("kind")).toString() == QLatin1String("i");
        const qint64 words = e.value(QStringLiteral("bytes")).toInteger() / 4;
        const auto *want = reinterpret_cast<const quint32 *>(
            expectedBase + e.value(QStringLiteral("offset")).toInteger());
        const auto *have = reinterpret_cast<const quint32 *>(
            gotBase + g.value(QStringLiteral("offset")).toInteger());
        for (qint64 i = 0; i < words; ++i, ++index) {
            const check::KilnElementVerdict v = check::kilnCheckElement(
                have[i], want[i], 0, 0, integer ? 1 : 0, sandbox::kSentinelWord,
                integer ? 0.0 : tolerance.abs, integer ? 0.0 : tolerance.rel, 0.0);
            c.maxAbs = std::max(c.maxAbs, v.absError);
            c.maxRel = std::max(c.maxRel, v.relError);
            if (!v.bad)
                continue;
            c.unwritten += v.unwritten;
            // A NaN's error is no number: counted apart, so the message does not say "max
            // abs error 0" of an output full of NaN.
            if (!integer && !v.unwritten && !std::isfinite(std::bit_cast<float>(have[i])))
                ++c.notFinite;
            if (c.first < 0)
                c.first = index;
            ++c.mismatches;
        }
    }
    return c;
}

// The reference draws inputs under the seed and computes its outputs in its own process; the
// engine copies only the inputs into the candidate's buffer, the candidate computes, and both
// its outputs and its inputs as the call left them come back here.
std::optional<TorchEvaluation::Comparison>
TorchEvaluation::callOnSeed(TorchReference &reference, quint64 seed, bool sameAddresses,
                            QJsonObject *layout, bool spread)
{
    SandboxProcess::Reply reply;
    if (!referenceRequest(
            reference, "inputs " + QByteArray::number(seed) + (spread ? " 0 1" : " 0 0"),
            m_options.torchCallTimeoutMs, QStringLiteral("the reference's forward"), &reply))
        return std::nullopt;
    *layout = TorchProcess::json(reply).object();
    const QJsonArray inputs = layout->value(QStringLiteral("inputs")).toArray();
    const QJsonArray outputs = layout->value(QStringLiteral("outputs")).toArray();
    if (reference.setBytes() == 0) {
        qint64 bytes = 0;
        for (const QJsonArray &part : {inputs, outputs})
            for (const QJsonValue &value : part)
                bytes += value.toObject().value(QStringLiteral("bytes")).toInteger();
        reference.noteSetBytes(bytes);
    }
    const qint64 end = layout->value(QStringLiteral("end")).toInteger();
    m_outputAt = aligned(end);
    if (!m_candidate->ensureBuffer(2 * m_outputAt + (1 << 20))) {
        m_failure = Failure{Verdict::Resource, QStringLiteral("cannot grow the shared buffer")};
        return std::nullopt;
    }
    for (const QJsonValue &value : inputs) {
        const QJsonObject in = value.toObject();
        if (in.contains(QStringLiteral("offset")))
            std::memcpy(m_candidate->buffer() + in.value(QStringLiteral("offset")).toInteger(),
                        reference.process().buffer() +
                            in.value(QStringLiteral("offset")).toInteger(),
                        size_t(in.value(QStringLiteral("bytes")).toInteger()));
    }
    const QJsonObject spec{{QStringLiteral("inputs"), inputs},
                           {QStringLiteral("outputs"), outputs},
                           {QStringLiteral("at"), m_outputAt},
                           {QStringLiteral("same"), sameAddresses}};
    if (!m_warmed && m_language.build() == KernelLanguage::Build::OnFirstCall && !warmUp(spec))
        return std::nullopt;
    if (!request(*m_candidate, "call " + compact(spec), m_options.torchCallTimeoutMs,
                 QStringLiteral("the candidate's forward"), &reply))
        return std::nullopt;
    const QJsonObject answer = TorchProcess::json(reply).object();
    m_lastAnswer = answer;
    Comparison c = compare(outputs, reference.process().buffer(),
                           answer.value(QStringLiteral("outputs")).toArray());
    const QJsonArray after = answer.value(QStringLiteral("after")).toArray();
    for (qsizetype i = 0; i < inputs.size() && i < after.size(); ++i) {
        const QJsonObject in = inputs[i].toObject();
        if (!in.contains(QStringLiteral("offset")))
            continue;
        const qint64 bytes = in.value(QStringLiteral("bytes")).toInteger();
        const QJsonObject out = after[i].toObject();
        const qint64 at = out.value(QStringLiteral("offset")).toInteger(-1);
        const bool inside = at >= 0 && at <= m_candidate->bufferSize() - bytes;
        if (out.value(QStringLiteral("bytes")).toInteger() != bytes || !inside ||
            std::memcmp(m_candidate->buffer() + at,
                        reference.process().buffer() +
                            in.value(QStringLiteral("offset")).toInteger(),
                        size_t(bytes)) != 0)
            c.inputsChanged = true;
    }
    return c;
}

bool TorchEvaluation::warmUp(const QJsonObject &spec)
{
    QElapsedTimer timer;
    timer.start();
    SandboxProcess::Reply reply;
    const bool ok = request(
        *m_candidate, "warm " + compact(spec), m_options.torchBuildTimeoutMs,
        QStringLiteral("the first call (%1 compiles its kernels)").arg(m_language.displayName()),
        &reply);
    const double ms = timer.nsecsElapsed() / 1e6;
    m_warmMs = ms; // the compile stage's, not the correctness stage's it runs inside
    m_warmed = ok;
    const QJsonObject answer = ok ? TorchProcess::json(reply).object() : QJsonObject();
    QJsonObject data{{QStringLiteral("language"), m_language.id()},
                     {QStringLiteral("jit"), true},
                     {QStringLiteral("compile_ms"), answer.value(QStringLiteral("ms")).toDouble()}};
    for (const char *key : {"autotune", "cache", "cache_files_before", "cache_files_after"})
        data.insert(QLatin1String(key), answer.value(QLatin1String(key)));
    if (!ok) {
        addStage(QStringLiteral("compile"), false, ms, m_failure->message, data);
        return false;
    }
    m_compiled = true;
    m_isolation.replace(
        QStringLiteral("seccomp=after-import"),
        QStringLiteral("seccomp=%1").arg(answer.value(QStringLiteral("seccomp")).toInt()));
    const QJsonObject autotune = answer.value(QStringLiteral("autotune")).toObject();
    addStage(
        QStringLiteral("compile"), true, ms,
        QStringLiteral("%1 compiled on its first call in %2 s%3")
            .arg(m_language.displayName())
            .arg(answer.value(QStringLiteral("ms")).toDouble() / 1000.0, 0, 'f', 2)
            .arg(autotune.isEmpty()
                     ? QString()
                     : QStringLiteral(", autotune chose %1 configuration(s)").arg(autotune.size())),
        data);
    return true;
}

// A visible seed first (public: what a policy may be told about), then secret ones, which decide
// the verdict with it and of which a policy learns only that they failed (FeedbackSummary); the
// second call writes its new values into the first call's tensors, so a result cached on
// addresses answers with the first seed's outputs, which are kept here.
bool TorchEvaluation::checkCorrectness(TorchReference &reference)
{
    QElapsedTimer timer;
    timer.start();
    // The first call of a JIT language is the compile stage's time.
    const auto elapsedMs = [&timer, this] { return timer.nsecsElapsed() / 1e6 - m_warmMs; };
    QByteArray previous;
    QJsonArray previousOutputs;
    QJsonArray seeds;
    // The seeds' sets, then one whose spread values catch constant and subsampled answers.
    const int count = std::max(2, m_options.torchSeeds) + 1;
    for (int i = 0; i < count; ++i) {
        QJsonObject layout;
        const QString set = i == 0 ? QStringLiteral("visible") : QStringLiteral("hidden");
        const std::optional<Comparison> c =
            callOnSeed(reference, i == 0 ? kVisibleSeed : seed(i), i == 1, &layout, i == count - 1);
        if (!c) {
            addStage(QStringLiteral("correctness"), false, elapsedMs(),
                     m_failure ? m_failure->message : QString(),
                     {{QStringLiteral("failed_on"), set}});
            return false;
        }
        seeds.append(QJsonObject{{QStringLiteral("mismatches"), c->mismatches},
                                 {QStringLiteral("unwritten"), c->unwritten},
                                 {QStringLiteral("max_abs_error"), c->maxAbs},
                                 {QStringLiteral("max_rel_error"), c->maxRel},
                                 {QStringLiteral("first_mismatch"), c->first},
                                 {QStringLiteral("same_addresses"), i == 1},
                                 {QStringLiteral("spread"), i == count - 1},
                                 {QStringLiteral("set"), set}});
        if (c->inputsChanged)
            addFlag(QStringLiteral("input_modified"));
        if (c->unwritten > 0)
            addFlag(QStringLiteral("output_unwritten"),
                    QStringLiteral("%1 element(s)").arg(c->unwritten));
        if (!c->ok() && i == 1 && !previous.isEmpty() &&
            compare(previousOutputs, previous.constData(),
                    m_lastAnswer.value(QStringLiteral("outputs")).toArray())
                .ok())
            addFlag(QStringLiteral("cached_result"));
        if (!c->ok() || c->inputsChanged) {
            m_wrongDetail =
                !c->problem.isEmpty() ? c->problem
                : c->mismatches > 0
                    ? QStringLiteral("input set %1: %2 element(s) outside the tolerance (first at "
                                     "flat index %3; max abs error %4%5)")
                          .arg(i + 1)
                          .arg(c->mismatches)
                          .arg(c->first)
                          .arg(c->maxAbs, 0, 'g', 3)
                          .arg(c->notFinite > 0
                                   ? QStringLiteral(" among finite ones; %1 NaN or infinite")
                                         .arg(c->notFinite)
                                   : QString())
                    : QStringLiteral("input set %1: the forward changed its inputs").arg(i + 1);
            addStage(QStringLiteral("correctness"), false, elapsedMs(), m_wrongDetail,
                     {{QStringLiteral("seeds"), seeds}, {QStringLiteral("failed_on"), set}});
            return false;
        }
        if (i == 0) {
            previous = QByteArray(reference.process().buffer(),
                                  layout.value(QStringLiteral("end")).toInteger());
            previousOutputs = layout.value(QStringLiteral("outputs")).toArray();
        }
    }
    m_correct = true;
    addStage(QStringLiteral("correctness"), true, elapsedMs(),
             QStringLiteral("%1 input sets match the reference").arg(count),
             {{QStringLiteral("seeds"), seeds},
              {QStringLiteral("memory"), m_memoryPlan},
              {QStringLiteral("candidate_process"), m_startTimes},
              {QStringLiteral("extensions_loaded"), m_loadedExtensions}});
    return true;
}

namespace {

// "<event-ns>/<wall-ns> ... prep=<ns> [outputs]" -> milliseconds.
struct TimedBatch
{
    QList<double> events;
    QList<double> walls;
    double prepMs = 0.0;
    double totalMs = 0.0; // the whole request, by the worker's own clock
    QJsonArray outputs;
    // What the worker's clock saw beyond the calls and their preparation.
    double unexplainedMs() const { return std::max(0.0, totalMs - wallSum() - prepMs); }
    double wallSum() const
    {
        double sum = 0.0;
        for (double w : walls)
            sum += w;
        return sum;
    }
};

TimedBatch parseBatch(const SandboxProcess::Reply &reply)
{
    TimedBatch batch;
    for (const QByteArray &word : reply.words) {
        if (word.startsWith("prep="))
            batch.prepMs = word.mid(5).toDouble() / 1e6;
        else if (word.startsWith("total="))
            batch.totalMs = word.mid(6).toDouble() / 1e6;
        else if (word.startsWith('['))
            batch.outputs = QJsonDocument::fromJson(word).array();
        else if (const qsizetype slash = word.indexOf('/'); slash > 0) {
            batch.events.append(word.left(slash).toDouble() / 1e6);
            batch.walls.append(word.mid(slash + 1).toDouble() / 1e6);
        }
    }
    return batch;
}

} // namespace

// One round: the candidate, eager PyTorch and torch.compile each time `count` calls on the same
// fresh inputs (derived from the round's seed in both processes); the candidate's last outputs
// must equal the reference's on those inputs.
bool TorchEvaluation::timeRound(TorchReference &reference, int count, quint64 roundSeed)
{
    const QByteArray tail = ' ' + QByteArray::number(count) + ' ' + QByteArray::number(roundSeed);
    SandboxProcess::Reply reply;
    QElapsedTimer observed;
    observed.start();
    if (!request(*m_candidate, "time candidate" + tail + ' ' + QByteArray::number(m_outputAt),
                 m_options.torchCallTimeoutMs, QStringLiteral("the candidate's timed calls"),
                 &reply))
        return false;
    const double candidateMs = observed.nsecsElapsed() / 1e6;
    m_observedMs += candidateMs;
    const TimedBatch candidate = parseBatch(reply);
    m_reportedMs += std::max(candidate.totalMs, candidate.wallSum() + candidate.prepMs);
    observed.restart();
    if (!referenceRequest(reference, "time eager" + tail + " 0", m_options.torchCallTimeoutMs,
                          QStringLiteral("eager PyTorch's timed calls"), &reply))
        return false;
    const TimedBatch eager = parseBatch(reply);
    // Eager's request, in a process that runs no candidate code, has the same untimed part
    // (fresh inputs, the outputs sent back): it calibrates the engine's clock bound.
    m_clockBound.calibrate(
        {observed.nsecsElapsed() / 1e6, eager.wallSum(), int(eager.walls.size())});
    m_clockBound.observe({candidateMs, candidate.wallSum(), int(candidate.walls.size())});
    if (!compare(eager.outputs, reference.process().buffer(), candidate.outputs).ok()) {
        m_correct = false;
        m_wrongDetail = QStringLiteral("a timed call's outputs differ from the reference's on the "
                                       "same fresh inputs");
        return false;
    }
    // A call's time is its events, or its synchronised wall clock less eager's own overhead
    // when that is more: work the events do not see (another stream) still counts.
    const double eagerGap =
        std::max(0.0, TimingStats::medianOf(eager.walls) - TimingStats::medianOf(eager.events));
    for (qsizetype i = 0; i < candidate.events.size(); ++i)
        m_candidateTiming.add(std::max(candidate.events[i], candidate.walls.value(i) - eagerGap));
    for (double ms : eager.events)
        m_eagerTiming.add(ms);
    m_candidateUnexplainedMs += candidate.unexplainedMs();
    m_eagerUnexplainedMs += eager.unexplainedMs();
    m_candidateWalls.append(candidate.walls);
    m_eagerWalls.append(eager.walls);
    if (m_compiledBaseline) {
        if (!referenceRequest(reference, "time compiled" + tail + " 0",
                              m_options.torchCallTimeoutMs,
                              QStringLiteral("torch.compile's timed calls"), &reply))
            return false;
        for (double ms : parseBatch(reply).events)
            m_compiledTiming.add(ms);
    }
    return true;
}

void TorchEvaluation::measureTiming(TorchReference &reference)
{
    QElapsedTimer timer;
    timer.start();
    QJsonObject layout;
    // The timing inputs: one more secret seed, checked like the others, then derived afresh in
    // every timed call.
    const std::optional<Comparison> base = callOnSeed(reference, seed(100), false, &layout);
    if (!base || !base->ok()) {
        if (base) {
            m_correct = false;
            m_wrongDetail = QStringLiteral("the timing input set: outputs differ from the "
                                           "reference's");
        }
        addStage(QStringLiteral("timing"), false, timer.nsecsElapsed() / 1e6,
                 m_failure ? m_failure->message : m_wrongDetail);
        return;
    }
    // A batch stays well inside one request's time limit, however slow one call is.
    const double callMs = std::max(0.01, m_lastAnswer.value(QStringLiteral("ms")).toDouble());
    const int batchLimit =
        std::clamp(int(0.3 * m_options.torchCallTimeoutMs / (3.0 * callMs + 1.0)), 1, 25);
    QString compileNote;
    m_compiledBaseline = reference.ensureCompiled(&compileNote);
    const double setupMs = timer.nsecsElapsed() / 1e6;
    if (!beginTimedWindow(reference)) {
        addStage(QStringLiteral("timing"), false, timer.nsecsElapsed() / 1e6, m_failure->message);
        return;
    }
    int rounds = 0;
    AdaptiveTiming::Stop stop = AdaptiveTiming::Stop::Continue;
    QJsonArray timedAgain;
    for (int attempt = 1; attempt <= kTimingAttempts; ++attempt) {
        if (!timeRounds(reference, batchLimit, &rounds, &stop)) {
            addStage(QStringLiteral("timing"), false, timer.nsecsElapsed() / 1e6,
                     m_failure ? m_failure->message : m_wrongDetail);
            return;
        }
        // A slowed clock is slow in every attempt; a stall of the host that the candidate did
        // not cause passes with its attempt.
        const QString gap = clockGap();
        if (gap.isEmpty() || attempt == kTimingAttempts || m_cancel)
            break;
        timedAgain.append(gap);
        restartTimingRecord();
    }
    QJsonObject data{{QStringLiteral("setup_ms"), setupMs},
                     {QStringLiteral("rounds"), rounds},
                     {QStringLiteral("stop"), AdaptiveTiming::stopName(stop)},
                     {QStringLiteral("compile_note"), compileNote},
                     {QStringLiteral("lock_wait_ms"), m_lockWaitMs}};
    if (!timedAgain.isEmpty())
        data.insert(QStringLiteral("clock_gaps_timed_again"), timedAgain);
    judgeTiming(data);
    addStage(QStringLiteral("timing"), true, timer.nsecsElapsed() / 1e6,
             QStringLiteral("%1 ms against eager %2 ms%3 (n=%4)")
                 .arg(m_result.candidateTiming.median, 0, 'g', 4)
                 .arg(m_result.baselineTiming.median, 0, 'g', 4)
                 .arg(m_result.compiledBaselineMs
                          ? QStringLiteral(", torch.compile %1 ms")
                                .arg(*m_result.compiledBaselineMs, 0, 'g', 4)
                          : QString())
                 .arg(m_result.candidateTiming.n),
             data);
}

// Rounds of timed calls until the candidate's and eager's timings are settled (or the budget is
// spent); false when a call failed or a timed output was wrong.
bool TorchEvaluation::timeRounds(TorchReference &reference, int batchLimit, int *rounds,
                                 AdaptiveTiming::Stop *stop)
{
    QElapsedTimer loop;
    loop.start();
    *stop = AdaptiveTiming::Stop::Continue;
    while (*stop == AdaptiveTiming::Stop::Continue && !m_cancel) {
        const double elapsed = loop.nsecsElapsed() / 1e6;
        const int count = std::max(1, m_candidateTiming.nextBatch(elapsed, batchLimit));
        if (!timeRound(reference, count, seed(200 + (*rounds)++)))
            return false;
        const double now = loop.nsecsElapsed() / 1e6;
        *stop = m_candidateTiming.decide(now);
        if (*stop != AdaptiveTiming::Stop::Continue &&
            m_eagerTiming.decide(now) == AdaptiveTiming::Stop::Continue &&
            now < 2 * m_options.torchTimingBudgetMs)
            *stop = AdaptiveTiming::Stop::Continue; // the baseline needs more trials too
    }
    return true;
}

// Evidence that the engine's clock saw time the candidate's process did not report; empty when
// the clocks agree. In total (beyond eager's own untimed part, with generous margins), and call
// by call against eager's requests (EngineClockBound).
QString TorchEvaluation::clockGap() const
{
    if (m_observedMs > 3 * m_reportedMs + 500.0 ||
        m_candidateUnexplainedMs > 3 * m_eagerUnexplainedMs + 500.0)
        return QStringLiteral("the engine saw %1 ms, the process reported %2")
            .arg(m_observedMs, 0, 'f', 0)
            .arg(m_reportedMs, 0, 'f', 0);
    const EngineClockBound::Finding bound = m_clockBound.judge();
    return bound.exceeded ? bound.describe() : QString();
}

// A new attempt's timings start empty; the clock bound keeps eager's calibration.
void TorchEvaluation::restartTimingRecord()
{
    m_candidateTiming = AdaptiveTiming(timingRules(m_options));
    m_eagerTiming = AdaptiveTiming(timingRules(m_options));
    m_compiledTiming = AdaptiveTiming(timingRules(m_options));
    m_candidateWalls.clear();
    m_eagerWalls.clear();
    m_reportedMs = m_observedMs = 0.0;
    m_candidateUnexplainedMs = m_eagerUnexplainedMs = 0.0;
    m_clockBound.restart();
}

// Speedups, and the cross-checks no in-process timer can fake: the wall clock around each call
// (device-synchronised, so work on another stream counts) against its events, and the engine's
// own clock around each batch against what the batch said it took.
void TorchEvaluation::judgeTiming(QJsonObject &data)
{
    const TimingStats candidate = m_candidateTiming.stats();
    const TimingStats eager = m_eagerTiming.stats();
    EvaluationRecorder::recordTimes(m_result, candidate, eager, m_candidateTiming.samples(),
                                    m_eagerTiming.samples());
    data.insert(QStringLiteral("eager_ms"), eager.median);
    if (m_compiledBaseline && m_compiledTiming.stats().n > 0) {
        const TimingStats compiled = m_compiledTiming.stats();
        m_result.compiledBaselineMs = compiled.median;
        if (candidate.median > 0.0)
            m_result.compiledSpeedup = compiled.median / candidate.median;
        data.insert(QStringLiteral("compiled_ms"), compiled.median);
        data.insert(QStringLiteral("compiled_timing"), compiled.toJson());
    }
    const double wall = TimingStats::medianOf(m_candidateWalls);
    const double eagerGap = TimingStats::medianOf(m_eagerWalls) - eager.median;
    const double gap = wall - candidate.median;
    data.insert(QStringLiteral("wall_ms"), wall);
    data.insert(QStringLiteral("observed_ms"), m_observedMs);
    data.insert(QStringLiteral("reported_ms"), m_reportedMs);
    if (gap > kSideStreamGapMs + 3 * std::max(0.0, eagerGap) && gap > 0.5 * wall)
        judgeGap(QStringLiteral("wall %1 ms against events %2 ms").arg(wall).arg(candidate.median),
                 data);
    data.insert(QStringLiteral("unexplained_ms"), m_candidateUnexplainedMs);
    data.insert(QStringLiteral("eager_unexplained_ms"), m_eagerUnexplainedMs);
    // The engine's clock against the worker's, and the worker's against its per-call times
    // (eager's batches, of the same sizes, say how much else a batch honestly costs).
    if (const QString gap = clockGap(); !gap.isEmpty())
        addFlag(QStringLiteral("timer_inconsistent"), gap);
    if (m_result.speedup && *m_result.speedup > m_options.largeSpeedup)
        addFlag(QStringLiteral("large_speedup"));
}

// Time-slicing with another process's context widens the wall clock beyond the events as
// work on another stream does: where NVML saw another process busy on the GPU during the window,
// the time is less certain (advisory), not the candidate's doing. Without NVML, or on the CPU
// device, the gap flags as ever.
void TorchEvaluation::judgeGap(const QString &evidence, QJsonObject &data)
{
    QList<GpuActivity::Busy> others;
    GpuActivity activity;
    const bool gpu = m_options.torchDevice != QLatin1String("cpu");
    if (gpu) {
        activity.waitForSamples(m_gpuUuid, GpuActivity::nowMicroseconds(), kSampleWaitMs);
        others = activity.othersSince(m_gpuUuid, m_timingSince, m_ownPids);
        if (!others.isEmpty())
            data.insert(QStringLiteral("other_processes"), GpuActivity::toJson(others));
        if (!activity.error().isEmpty())
            data.insert(QStringLiteral("gpu_activity"), activity.error());
    }
    if (!gpu || !activity.error().isEmpty() || others.isEmpty()) {
        addFlag(QStringLiteral("side_stream_work"), evidence);
        return;
    }
    m_result.disturbance =
        QStringLiteral("disturbed by %1 during timing").arg(GpuActivity::describe(others));
    addFlag(QStringLiteral("timing_disturbed"), GpuActivity::describe(others));
}

// After correctness and timing, so its requests change no measurement: the replay's outputs go
// where the candidate's outputs go, and are compared here like any of its outputs.
void TorchEvaluation::audit(TorchReference &reference)
{
    QElapsedTimer timer;
    timer.start();
    TorchAudit audit(*m_candidate, reference.process(), reference.opRecord(), m_source,
                     m_options.torchCallTimeoutMs, m_cancel);
    const auto sameOutputs = [this](const QJsonArray &normal, const QJsonArray &replay) {
        // Both lists come from the candidate's process: each place is checked before a read.
        for (const QJsonValue &value : normal) {
            const QJsonObject entry = value.toObject();
            const qint64 offset = entry.value(QStringLiteral("offset")).toInteger(-1);
            const qint64 bytes = entry.value(QStringLiteral("bytes")).toInteger(-1);
            if (offset < 0 || bytes < 0 || offset > m_candidate->bufferSize() - bytes)
                return false;
        }
        return compare(normal, m_candidate->buffer(), replay).ok();
    };
    const TorchAudit::Outcome outcome = audit.run(seed(300), m_outputAt, sameOutputs);
    for (const TorchAudit::Finding &finding : outcome.findings)
        addFlag(finding.flag, finding.detail);
    addStage(QStringLiteral("audit"), outcome.notes.isEmpty(), timer.nsecsElapsed() / 1e6,
             outcome.summary, outcome.data);
}

EvaluationResult TorchEvaluation::finish()
{
    m_deviceLock.reset();
    if (m_candidate) {
        m_candidate->process().request("quit", 2000);
        m_candidate->process().kill();
    }
    EvaluationRecorder::conclude(
        m_result, {m_compiled, m_compiled, m_correct, m_failure, m_wrongDetail, m_isolation});
    return m_result;
}

EvaluationResult TorchEvaluation::run()
{
    const TorchEnvironment &environment = m_backend.environment();
    if (!environment.usable) {
        m_failure = EvaluationRecorder::verifierFailure(
            QStringLiteral("the PyTorch backend cannot run here: ") + environment.reason);
        addStage(QStringLiteral("compile"), false, 0.0, m_failure->message);
        return finish();
    }
    // The device's lock name first: the candidate's process starts under it.
    chooseDevice();
    if (!screen())
        return finish();
    const QString key = chooseExtensionFolder();
    QString startError;
    std::future<bool> started = std::async(
        std::launch::async, [this, &startError] { return startCandidateProcess(&startError); });
    const bool built = build(key);
    if (!started.get() && built) {
        // Not the candidate's doing: none of its code has run yet.
        m_failure =
            m_cancel ? Failure{Verdict::Timeout, startError}
                     : EvaluationRecorder::verifierFailure(
                           QStringLiteral("cannot start the candidate's sandbox: ") + startError);
        addStage(QStringLiteral("correctness"), false, 0.0, m_failure->message);
    }
    if (!built || !m_candidate)
        return finish();
    QMutexLocker gpu(&m_backend.gpu());
    // Correctness calls of several candidates (of any Kiln process) may share the device; a
    // timing never shares it with anything of theirs.
    if (!lockDevice(DeviceLock::Mode::Shared)) {
        addStage(QStringLiteral("correctness"), false, 0.0, m_failure->message);
        return finish();
    }
    TorchReference &reference = m_backend.reference(m_task);
    QString error;
    if (!reference.ensureReady(&error)) {
        failVerifier(QStringLiteral("the reference is unavailable: ") + error);
        return finish();
    }
    if (!planMemory(reference)) {
        addStage(QStringLiteral("correctness"), false, 0.0, m_failure->message);
        return finish();
    }
    if (!loadCandidate(reference)) {
        const bool compile = m_failure && m_failure->verdict == Verdict::CompileError;
        addStage(compile ? QStringLiteral("compile") : QStringLiteral("correctness"), false, 0.0,
                 m_failure->message);
        return finish();
    }
    if (checkCorrectness(reference)) {
        if (m_options.runTiming)
            measureTiming(reference);
        // The audit judges shares and outputs, not times: it holds the device shared again, so
        // the next candidate's process may start beside it (unless the problem is too large to
        // share the GPU's memory: then the evaluation holds it alone to its end).
        const bool alone = m_memoryPlan.value(QStringLiteral("device_alone")).toBool();
        if (m_correct && !m_failure && (alone || lockDevice(DeviceLock::Mode::Shared)))
            audit(reference);
    }
    return finish();
}

} // namespace kiln
