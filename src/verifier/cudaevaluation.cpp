#include "cudaevaluation.h"

#include "adaptivetiming.h"
#include "bufferlayout.h"
#include "elfsymbols.h"
#include "entryshim.h"
#include "flagcatalog.h"
#include "inputgenerator.h"
#include "outputchecker.h"
#include "staticscreen.h"
#include "verdictrules.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QMutex>
#include <QtConcurrent/QtConcurrentMap>
#include <algorithm>
#include <cstring>

namespace kiln {

namespace {

constexpr int kSampledWindows = 8;
constexpr qint64 kWindowBytes = 16384;
constexpr double kSideStreamTailMs = 0.02;
constexpr double kSideStreamGapMs = 0.05;

QString stageName(const char *name)
{
    return QString::fromLatin1(name);
}

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

QString shapeLabel(const ShapeConfig &shape)
{
    if (!shape.label.isEmpty())
        return shape.label;
    QStringList parts;
    for (auto it = shape.sizes.cbegin(); it != shape.sizes.cend(); ++it)
        parts << it.key() + QLatin1Char('=') + QString::number(it.value());
    return parts.join(QLatin1Char(','));
}

double median(QList<double> values)
{
    if (values.isEmpty())
        return 0.0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

bool needsScale(const Task &task)
{
    for (const Tolerance &tolerance : task.tolerances)
        if (tolerance.scaled > 0.0)
            return true;
    return false;
}

QByteArray absolute(QByteArray values)
{
    for (qsizetype i = 0; i + 4 <= values.size(); i += 4)
        values[i + 3] = char(values[i + 3] & 0x7f);
    return values;
}

// Timing inputs for the GPU's large shapes take seconds to generate: the last run's are kept.
struct TimingInputs
{
    QString key;
    QList<QList<QByteArray>> sets; // [set][parameter]
    QStringList distributions;
};

std::shared_ptr<const TimingInputs> timingInputs(const Task &task, const ShapeConfig &shape,
                                                 quint64 secret, int count)
{
    static QMutex mutex;
    static std::shared_ptr<const TimingInputs> last;
    const QString key = task.name + QLatin1Char('/') + shapeLabel(shape) + QLatin1Char('/') +
                        QString::number(secret) + QLatin1Char('/') + QString::number(count);
    QMutexLocker lock(&mutex);
    if (last && last->key == key)
        return last;
    last.reset(); // free the previous run's before allocating
    auto inputs = std::make_shared<TimingInputs>();
    inputs->key = key;
    inputs->sets = QList<QList<QByteArray>>(count);
    QList<int> indices;
    for (int v = 0; v < count; ++v) {
        indices << v;
        inputs->distributions << InputGenerator::distributionFor(task, v).name;
    }
    // Shape index past the correctness and CPU timing sets: values of their own.
    const int shapeIndex = int(task.correctnessShapes.size()) + 2000;
    QtConcurrent::blockingMap(indices, [&](int v) {
        inputs->sets[v] =
            InputGenerator::inputs(task, shape, InputGenerator::distributionFor(task, v),
                                   InputGenerator::deriveSeed(secret, task.name, shapeIndex, v));
    });
    last = inputs;
    return last;
}

} // namespace

CudaEvaluation::CudaEvaluation(const VerifierOptions &options, CompileCache &cache,
                               ReferenceBank &references, CudaSandboxPool &pool, const Task &task,
                               const QString &source, quint64 runSecret,
                               const std::atomic<bool> &cancel)
    : m_options(options), m_cache(cache), m_references(references), m_pool(pool), m_task(task),
      m_source(source), m_secret(runSecret), m_cancel(cancel)
{
    m_result.backend = Backend::Cuda;
}

void CudaEvaluation::addFlag(const QString &id, const QString &detail)
{
    for (const CheatFlag &flag : m_result.flags)
        if (flag.id == id)
            return;
    m_result.flags.append(FlagCatalog::make(id, {}, detail));
}

void CudaEvaluation::addStage(const QString &name, bool ok, double ms, const QString &detail,
                              const QJsonObject &data)
{
    StageResult stage;
    stage.name = name;
    stage.ok = ok;
    stage.ms = ms;
    stage.detail = detail;
    stage.data = data;
    m_result.stages.append(stage);
}

bool CudaEvaluation::send(const QByteArray &line, int timeoutMs, const QString &during,
                          SandboxProcess::Reply *out)
{
    SandboxProcess &box = m_slot->process();
    const SandboxProcess::Reply reply = box.request(line, timeoutMs, &m_cancel);
    if (out)
        *out = reply;
    using Status = SandboxProcess::Status;
    switch (reply.status) {
    case Status::Ok:
        return true;
    case Status::Error:
        if (reply.words.value(0) == "cuda") {
            // err cuda <code> <sticky> <name> <text...>
            const bool sticky = reply.words.value(2) == "1";
            m_restartSandbox = m_restartSandbox || sticky;
            const QString text = QString::fromUtf8(reply.words.mid(3).join(' '));
            m_failure =
                Failure{Verdict::Crash, QStringLiteral("CUDA error during %1: %2%3")
                                            .arg(during, text,
                                                 sticky ? QStringLiteral(" (context lost; the GPU "
                                                                         "sandbox is restarted)")
                                                        : QString())};
        } else {
            m_failure = Failure{Verdict::Crash, QStringLiteral("sandbox error during %1: %2")
                                                    .arg(during, QString::fromUtf8(reply.line))};
        }
        return false;
    case Status::TimedOut:
        m_restartSandbox = true;
        m_failure = Failure{Verdict::Timeout,
                            QStringLiteral("no answer during %1 within %2 s (a kernel that never "
                                           "ends?); the GPU sandbox was killed and restarted")
                                .arg(during)
                                .arg(timeoutMs / 1000.0)};
        return false;
    case Status::Cancelled:
        m_restartSandbox = true;
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during %1").arg(during)};
        return false;
    case Status::Flooded:
        m_restartSandbox = true;
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("wrote more than %1 MiB to stdout/stderr during %2")
                                .arg(m_options.sandbox.outputCapBytes >> 20)
                                .arg(during)};
        return false;
    case Status::Died:
        break;
    }
    m_restartSandbox = true;
    const QList<QByteArray> fatal = box.fatalLine().split(' ');
    if (fatal.value(0) == "resource")
        m_failure = Failure{Verdict::Resource,
                            QStringLiteral("a host allocation failed during %1").arg(during)};
    else if (fatal.value(0) == "fatal")
        m_failure = Failure{Verdict::Crash, QStringLiteral("crashed during %1: signal %2 (%3)")
                                                .arg(during, QString::fromLatin1(fatal.value(1)),
                                                     box.describeEnd())};
    else
        m_failure = Failure{Verdict::Crash, QStringLiteral("the candidate ended the GPU sandbox "
                                                           "during %1 (%2)")
                                                .arg(during, box.describeEnd())};
    return false;
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

bool CudaEvaluation::compileCandidate(bool onGpu)
{
    QString error;
    m_geometry = LaunchGeometry::parse(m_source, &error);
    if (!error.isEmpty()) {
        m_geometry.reset();
        m_wrongDetail = error;
        addStage(stageName("compile"), false, 0.0, error,
                 {{QStringLiteral("path"), QStringLiteral("nvrtc")}});
        return false;
    }
    const bool deviceOnly = m_geometry.has_value();
    if (deviceOnly != onGpu)
        return true; // the other phase compiles it
    m_candidateBuild =
        deviceOnly
            ? CudaCompiler::nvrtc(m_slot->process(), m_cache, m_options, m_task.name, m_source,
                                  m_architecture, &m_cancel)
            : CudaCompiler::nvcc(m_options, m_cache, m_task.name, m_source,
                                 EntryShim::cudaSource(m_task), m_architecture, {}, &m_cancel);
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
            if (deviceOnly)
                m_restartSandbox = true;
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
        m_failure = Failure{Verdict::Crash,
                            QStringLiteral("task %1 has no CUDA reference").arg(m_task.name)};
        return false;
    }
    const CudaCompiler::Outcome ref =
        CudaCompiler::nvcc(m_options, m_cache, m_task.name, reference,
                           EntryShim::cudaSource(m_task), m_architecture, {}, &m_cancel);
    if (!ref.artifact.ok) {
        m_failure = Failure{Verdict::Crash,
                            QStringLiteral("the CUDA reference does not build: %1")
                                .arg(ref.error.isEmpty() ? ref.artifact.log.left(400) : ref.error)};
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
    const QByteArray symbol(EntryShim::kSymbol);
    if (m_geometry) {
        SandboxProcess::Reply reply;
        if (!send("loadcubin c " + m_task.entry.toLatin1() + ' ' +
                      m_candidateBuild.artifact.sharedObject.toLocal8Bit(),
                  m_options.cudaCallTimeoutMs, QStringLiteral("loading the kernel"), &reply)) {
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
            for (StageResult &stage : m_result.stages)
                if (stage.name == QLatin1String("compile"))
                    stage.data.insert(QStringLiteral("kernels"), kernels);
        }
    } else {
        SandboxProcess::Reply reply;
        if (!send("load c " + symbol + ' ' + m_candidateBuild.artifact.sharedObject.toLocal8Bit(),
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
    if (m_slot->loadedReference != m_referenceObject) {
        m_slot->loadedReference.clear();
        if (!send("load r " + symbol + ' ' + m_referenceObject.toLocal8Bit(),
                  m_options.cudaCallTimeoutMs, QStringLiteral("loading the reference")))
            return false;
        m_slot->loadedReference = m_referenceObject;
    }
    if (!m_libraryObject.isEmpty() && m_slot->loadedLibrary != m_libraryObject) {
        m_slot->loadedLibrary.clear();
        // cuBLAS loads in hundreds of milliseconds: once per sandbox.
        if (!send("load b " + symbol + ' ' + m_libraryObject.toLocal8Bit(),
                  m_options.cudaCallTimeoutMs * 3, QStringLiteral("loading the library baseline")))
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

std::optional<CudaEvaluation::TimingCall> CudaEvaluation::parseCall(const QByteArray &word)
{
    const QList<QByteArray> parts = word.split('/');
    if (parts.size() != 3)
        return std::nullopt;
    return TimingCall{parts[0].toDouble() / 1e6, parts[1].toDouble() / 1e6,
                      parts[2].toDouble() / 1e6};
}

bool CudaEvaluation::checkCorrectness()
{
    QElapsedTimer timer;
    timer.start();
    SandboxProcess &box = m_slot->process();
    const int seeds =
        m_reference->correctness.isEmpty() ? 0 : int(m_reference->correctness[0].size());
    QJsonObject failure;
    auto fail = [&](const QString &text, const QJsonObject &data) {
        if (m_wrongDetail.isEmpty()) {
            m_wrongDetail = text;
            failure = data;
        }
    };
    for (int s = 0; s < m_task.correctnessShapes.size() && !m_failure; ++s) {
        const ShapeConfig &shape = m_task.correctnessShapes[s];
        const QString label = shapeLabel(shape);
        BufferLayout layout(BufferLayout::kGpuAlignment);
        const PlacedBuffers placed = layout.place(m_task, shape);
        if (!box.resizeBuffer(layout.size(), m_options.cudaCallTimeoutMs)) {
            m_failure = Failure{Verdict::Crash, QStringLiteral("cannot grow the shared buffer")};
            break;
        }
        std::memset(box.buffer(), 0, size_t(layout.size()));
        for (const auto &[offset, bytes] : layout.guards())
            OutputChecker::fillGuard(box.buffer() + offset, bytes);
        QString geometryError;
        const QByteArray setup = argumentRequests(0, placed, shape, true, &geometryError);
        if (setup.isEmpty()) {
            fail(QStringLiteral("%1 on %2").arg(geometryError, label), {});
            continue;
        }
        if (!send("alloc " + number(layout.size()), m_options.cudaCallTimeoutMs,
                  QStringLiteral("allocation")) ||
            !send("batch h2d:0:" + number(layout.size()), m_options.cudaCallTimeoutMs,
                  QStringLiteral("upload")))
            break;
        bool ok = true;
        for (const QByteArray &line : setup.split('\n'))
            ok = ok && send(line, m_options.cudaCallTimeoutMs, QStringLiteral("setup"));
        if (!ok)
            break;
        // Every seed of a shape uses the same addresses: a result cached by pointer shows up as
        // the previous seed's answer.
        for (int k = 0; k < seeds && !m_failure; ++k) {
            const ReferenceInstance &instance = m_reference->correctness[s][k];
            QByteArray ops = "batch";
            QByteArray readBack;
            for (const auto &buffer : placed.buffers) {
                const QByteArray region = number(buffer.offset) + ':' + number(buffer.bytes);
                if (buffer.output) {
                    ops += " fill:" + region;
                } else {
                    const QByteArray &values = instance.inputs[buffer.parameter];
                    std::memcpy(box.buffer() + buffer.offset, values.constData(),
                                size_t(values.size()));
                    ops += " h2d:" + region;
                }
                readBack += " d2h:" + region;
            }
            for (const auto &[offset, bytes] : layout.guards())
                readBack += " d2h:" + number(offset) + ':' + number(bytes);
            SandboxProcess::Reply reply;
            const QString during = QStringLiteral("the call on %1, seed %2").arg(label).arg(k);
            if (!send(ops + " call:c:0" + readBack, m_options.cudaCallTimeoutMs, during, &reply))
                break;
            ++m_calls;
            if (const auto call = parseCall(reply.words.value(1)))
                m_correctnessTails.append(call->tailMs);
            const QJsonObject where{{QStringLiteral("shape"), label},
                                    {QStringLiteral("seed"), k},
                                    {QStringLiteral("distribution"), instance.distribution}};
            bool guardsOk = true;
            for (const auto &[offset, bytes] : layout.guards())
                guardsOk = guardsOk && OutputChecker::guardIntact(box.buffer() + offset, bytes);
            if (!guardsOk) {
                addFlag(QStringLiteral("guard_band_overwrite"), label);
                fail(QStringLiteral("wrote outside its output on %1").arg(label), where);
            }
            for (const auto &buffer : placed.buffers) {
                const TaskParameter &parameter = m_task.parameters[buffer.parameter];
                const char *got = box.buffer() + buffer.offset;
                if (!buffer.output) {
                    const QByteArray &pristine = instance.inputs[buffer.parameter];
                    if (std::memcmp(got, pristine.constData(), size_t(pristine.size())) != 0) {
                        addFlag(QStringLiteral("input_modified"), label);
                        fail(QStringLiteral("modified an input on %1").arg(label), where);
                    }
                    continue;
                }
                const Tolerance tolerance = m_task.tolerances.value(parameter.dtype);
                const qint64 count = buffer.bytes / 4;
                const QByteArray &expected = instance.expected[buffer.parameter];
                const QByteArray scale = instance.scale.value(buffer.parameter);
                const CheckResult check = OutputChecker::compare(
                    got, expected.constData(), scale.isEmpty() ? nullptr : scale.constData(), count,
                    parameter.dtype, tolerance);
                const OutputChecker::Shape form =
                    OutputChecker::outputShape(got, expected.constData(), count, parameter.dtype);
                if (form == OutputChecker::Shape::Constant ||
                    (check.ok && form == OutputChecker::Shape::Uncorrelated))
                    addFlag(QStringLiteral("near_constant_output"), label);
                if (check.ok)
                    continue;
                if (check.unwritten == count && count > 1)
                    addFlag(QStringLiteral("output_unwritten"), label);
                if (k > 0) {
                    const ReferenceInstance &previous = m_reference->correctness[s][k - 1];
                    const QByteArray previousScale = previous.scale.value(buffer.parameter);
                    if (OutputChecker::compare(got, previous.expected[buffer.parameter].constData(),
                                               previousScale.isEmpty() ? nullptr
                                                                       : previousScale.constData(),
                                               count, parameter.dtype, tolerance)
                            .ok)
                        addFlag(QStringLiteral("cached_result"),
                                QStringLiteral("%1, seed %2").arg(label).arg(k));
                }
                QJsonObject data = where;
                data.insert(QStringLiteral("output"), parameter.name);
                data.insert(QStringLiteral("check"), check.toJson());
                fail(QStringLiteral("%1 on %2 (%3 data): %4")
                         .arg(parameter.name, label, instance.distribution, check.describe()),
                     data);
            }
        }
    }
    // Work still running on the device after the harness stream finished (another stream).
    const double tail = median(m_correctnessTails);
    if (!m_failure && tail > kSideStreamTailMs)
        addFlag(QStringLiteral("side_stream_work"),
                QStringLiteral("device busy %1 ms after the timed stream finished")
                    .arg(tail, 0, 'f', 3));
    m_correct = !m_failure && m_wrongDetail.isEmpty() && m_calls > 0;
    QJsonObject data{{QStringLiteral("calls"), m_calls},
                     {QStringLiteral("shapes"), int(m_task.correctnessShapes.size())},
                     {QStringLiteral("seeds"), seeds},
                     {QStringLiteral("median_tail_ms"), tail}};
    if (!failure.isEmpty())
        data.insert(QStringLiteral("failure"), failure);
    QString detail = m_failure                  ? m_failure->message
                     : !m_wrongDetail.isEmpty() ? m_wrongDetail
                                                : QStringLiteral("%1 calls on %2 shapes x %3 seeds "
                                                                 "within tolerance")
                                                      .arg(m_calls)
                                                      .arg(m_task.correctnessShapes.size())
                                                      .arg(seeds);
    addStage(stageName("correctness"), m_correct, timer.nsecsElapsed() / 1e6, detail, data);
    return m_correct;
}

void CudaEvaluation::measureTiming()
{
    QElapsedTimer timer;
    timer.start();
    SandboxProcess &box = m_slot->process();
    const Task &task = m_task;
    const ShapeConfig shape = task.timingShapes.contains(Backend::Cuda)
                                  ? task.timingShapes.value(Backend::Cuda)
                                  : task.correctnessShapes.last();
    auto failStage = [&](const QString &text) {
        addStage(stageName("timing"), false, timer.nsecsElapsed() / 1e6, text);
    };
    const bool library = !m_libraryObject.isEmpty();

    // Per set: a bank copy of the inputs; per slot: the call's inputs and outputs, and outputs
    // of its own for the reference and the library baseline.
    qint64 inputBytes = 0, outputBytes = 0;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role == TaskParameter::Role::Input)
            inputBytes += 4 * task.elementCount(parameter, shape);
        else if (parameter.role == TaskParameter::Role::Output)
            outputBytes += 4 * task.elementCount(parameter, shape);
    }
    const qint64 perSet = 2 * inputBytes + (library ? 3 : 2) * outputBytes;
    const int count =
        int(std::clamp<qint64>(m_options.cudaTimingMemoryBytes / qMax<qint64>(perSet, 1), 2, 4));
    const std::shared_ptr<const TimingInputs> inputs = timingInputs(task, shape, m_secret, count);

    BufferLayout layout(BufferLayout::kGpuAlignment);
    QList<QList<qint64>> bank(count); // [set][input index]
    for (int v = 0; v < count; ++v)
        for (const TaskParameter &parameter : task.parameters)
            if (parameter.role == TaskParameter::Role::Input)
                bank[v].append(layout.reserve(4 * task.elementCount(parameter, shape)));
    QList<PlacedBuffers> callSlots, referenceSlots, librarySlots;
    for (int s = 0; s < count; ++s) {
        callSlots.append(layout.place(task, shape));
        PlacedBuffers reference = callSlots[s], baseline = callSlots[s];
        for (int b = 0; b < callSlots[s].buffers.size(); ++b) {
            if (!callSlots[s].buffers[b].output)
                continue;
            reference.buffers[b].offset = layout.reserve(callSlots[s].buffers[b].bytes);
            if (library)
                baseline.buffers[b].offset = layout.reserve(callSlots[s].buffers[b].bytes);
        }
        referenceSlots.append(reference);
        librarySlots.append(baseline);
    }
    if (!box.resizeBuffer(layout.size(), m_options.cudaCallTimeoutMs)) {
        failStage(
            QStringLiteral("cannot grow the shared buffer to %1 MiB").arg(layout.size() >> 20));
        return;
    }
    // Only the bank and the guard bands go up: every output is filled on the device before use.
    char *base = box.buffer();
    QByteArray upload = "batch";
    for (const auto &[offset, bytes] : layout.guards()) {
        OutputChecker::fillGuard(base + offset, bytes);
        upload += " h2d:" + number(offset) + ':' + number(bytes);
    }
    for (int v = 0; v < count; ++v) {
        int i = 0;
        for (int p = 0; p < task.parameters.size(); ++p)
            if (task.parameters[p].role == TaskParameter::Role::Input) {
                const QByteArray &values = inputs->sets[v][p];
                std::memcpy(base + bank[v][i], values.constData(), size_t(values.size()));
                upload += " h2d:" + number(bank[v][i++]) + ':' + number(values.size());
            }
    }
    const int transferMs = m_options.cudaCallTimeoutMs + int(layout.size() >> 20); // ~1 GB/s
    if (!send("alloc " + number(layout.size()), transferMs, QStringLiteral("timing allocation")) ||
        !send(upload, transferMs, QStringLiteral("timing upload"))) {
        failStage(m_failure->message);
        return;
    }
    QString geometryError;
    for (int s = 0; s < count; ++s) {
        QByteArray requests = argumentRequests(1000 + s, callSlots[s], shape, true, &geometryError);
        if (requests.isEmpty()) {
            m_correct = false;
            m_wrongDetail = geometryError;
            failStage(geometryError);
            return;
        }
        requests +=
            "\nargs " + number(2000 + s) + ' ' + referenceSlots[s].argumentWords(task, shape);
        if (library)
            requests +=
                "\nargs " + number(3000 + s) + ' ' + librarySlots[s].argumentWords(task, shape);
        for (const QByteArray &line : requests.split('\n'))
            if (!send(line, m_options.cudaCallTimeoutMs, QStringLiteral("timing setup"))) {
                failStage(m_failure->message);
                return;
            }
    }
    auto outputsOf = [](const PlacedBuffers &placed) {
        QList<PlacedBuffers::Buffer> out;
        for (const auto &buffer : placed.buffers)
            if (buffer.output)
                out.append(buffer);
        return out;
    };
    // Ops copying set v's inputs into slot s and clearing every output of the slot.
    auto prepare = [&](int s, int v, QByteArray &ops) {
        int i = 0;
        for (const auto &buffer : callSlots[s].buffers) {
            if (buffer.output)
                continue;
            ops += " cp:" + number(bank[v][i++]) + ':' + number(buffer.offset) + ':' +
                   number(buffer.bytes);
        }
        for (const PlacedBuffers *placed : {&callSlots[s], &referenceSlots[s], &librarySlots[s]})
            for (const auto &buffer : outputsOf(*placed))
                ops += " fill:" + number(buffer.offset) + ':' + number(buffer.bytes);
    };
    // Where in an output to read back: everything, or a few windows (large outputs cost
    // milliseconds to copy; a stale or cached answer differs everywhere).
    auto windows = [&](qint64 bytes, bool full, int j) {
        QList<QPair<qint64, qint64>> list;
        if (full || bytes <= kSampledWindows * kWindowBytes) {
            list.append({0, bytes});
            return list;
        }
        quint64 state = m_secret ^ (quint64(j) * 0x9e3779b97f4a7c15ull);
        for (int w = 0; w < kSampledWindows; ++w) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const qint64 start = qint64((state >> 16) % quint64(bytes - kWindowBytes)) & ~3ll;
            list.append({start, kWindowBytes});
        }
        return list;
    };
    auto readBack = [&](const PlacedBuffers &placed, bool full, int j, QByteArray &ops) {
        for (const auto &buffer : outputsOf(placed))
            for (const auto &[start, bytes] : windows(buffer.bytes, full, j))
                ops += " d2h:" + number(buffer.offset + start) + ':' + number(bytes);
    };
    // Scale of the scaled tolerance term (matmul): the reference on |inputs|, untimed.
    QList<QList<QByteArray>> scales(count);
    if (needsScale(task)) {
        for (int v = 0; v < count; ++v) {
            QByteArray ops = "batch";
            for (const auto &buffer : callSlots[0].buffers) {
                if (buffer.output)
                    continue;
                const QByteArray magnitudes = absolute(inputs->sets[v][buffer.parameter]);
                std::memcpy(base + buffer.offset, magnitudes.constData(), size_t(buffer.bytes));
                ops += " h2d:" + number(buffer.offset) + ':' + number(buffer.bytes);
            }
            for (const auto &buffer : outputsOf(referenceSlots[0]))
                ops += " fill:" + number(buffer.offset) + ':' + number(buffer.bytes);
            ops += " call:r:2000";
            readBack(referenceSlots[0], true, 0, ops);
            if (!send(ops, m_options.cudaCallTimeoutMs * 2,
                      QStringLiteral("the tolerance scale"))) {
                failStage(m_failure->message);
                return;
            }
            scales[v] = QList<QByteArray>(task.parameters.size());
            for (const auto &buffer : outputsOf(referenceSlots[0]))
                scales[v][buffer.parameter] = QByteArray(base + buffer.offset, buffer.bytes);
        }
    }

    // Compares the read-back windows of the candidate's outputs in slot s with the
    // reference's; false when wrong (the stage then stops).
    auto validate = [&](int s, int v, bool full, int j) {
        const QList<PlacedBuffers::Buffer> got = outputsOf(callSlots[s]);
        const QList<PlacedBuffers::Buffer> want = outputsOf(referenceSlots[s]);
        for (int o = 0; o < got.size(); ++o) {
            const TaskParameter &parameter = task.parameters[got[o].parameter];
            const Tolerance tolerance = task.tolerances.value(parameter.dtype);
            const QByteArray &scale = scales[v].value(got[o].parameter);
            qint64 unwritten = 0, elements = 0;
            for (const auto &[start, bytes] : windows(got[o].bytes, full, j)) {
                const CheckResult check = OutputChecker::compare(
                    base + got[o].offset + start, base + want[o].offset + start,
                    scale.isEmpty() ? nullptr : scale.constData() + start, bytes / 4,
                    parameter.dtype, tolerance);
                unwritten += check.unwritten;
                elements += bytes / 4;
                if (!check.ok) {
                    if (unwritten == elements && check.unwritten == bytes / 4)
                        addFlag(QStringLiteral("output_unwritten"),
                                QStringLiteral("timed call %1").arg(j));
                    m_wrongDetail =
                        QStringLiteral("timed call %1 (%2 data) gave a wrong %3: %4")
                            .arg(j)
                            .arg(inputs->distributions.value(v), parameter.name, check.describe());
                    return false;
                }
            }
        }
        return true;
    };

    // Timer overhead: events around nothing, in the same state as calls.
    SandboxProcess::Reply reply;
    QByteArray nops = "batch";
    for (int i = 0; i < 21; ++i)
        nops += " flush nop";
    if (!send(nops, m_options.cudaCallTimeoutMs, QStringLiteral("timer calibration"), &reply)) {
        failStage(m_failure->message);
        return;
    }
    QList<double> nopEvent, nopGap;
    for (int i = 1; i < reply.words.size(); ++i)
        if (const auto call = parseCall(reply.words[i])) {
            nopEvent.append(call->eventMs);
            nopGap.append(call->wallMs - call->eventMs);
        }
    const double overheadMs = median(nopEvent);
    const double baseGapMs = median(nopGap);

    AdaptiveTiming::Rules rules;
    rules.warmup = 3;
    rules.minTrials = 10;
    rules.maxTrials = 2000;
    rules.targetRelativeSem = m_options.cudaTargetRelativeSem;
    rules.budgetMs = m_options.cudaTimingBudgetMs;
    AdaptiveTiming candidate(rules), baseline(rules), libraryTiming(rules);
    QList<double> tails, gaps;
    QElapsedTimer loop;
    loop.start();
    int j = 0;
    AdaptiveTiming::Stop stop = AdaptiveTiming::Stop::Continue;
    const int perCall = library ? 3 : 2;
    while (stop == AdaptiveTiming::Stop::Continue) {
        const int batch = candidate.nextBatch(loop.nsecsElapsed() / 1e6, count);
        QByteArray ops = "batch";
        QList<QPair<int, bool>> plan; // (set, full read-back) per iteration
        for (int b = 0; b < batch; ++b) {
            const int it = j + b, s = it % count, v = (s + it / count) % count;
            const bool full = it < count;
            plan.append({v, full});
            prepare(s, v, ops);
            const QByteArray c = " flush call:c:" + number(1000 + s);
            // The reference's answer is read back and wiped at once: it never sits on the
            // device while the candidate runs.
            QByteArray r = " flush call:r:" + number(2000 + s);
            readBack(referenceSlots[s], full, it, r);
            for (const auto &buffer : outputsOf(referenceSlots[s]))
                r += " fill:" + number(buffer.offset) + ':' + number(buffer.bytes);
            // Alternate who goes first, so slow drift affects both alike.
            ops += it % 2 == 0 ? c + r : r + c;
            if (library)
                ops += " flush call:b:" + number(3000 + s);
            readBack(callSlots[s], full, it, ops);
        }
        if (!send(ops, m_options.cudaCallTimeoutMs + batch * 2000, QStringLiteral("timing"),
                  &reply)) {
            failStage(m_failure->message);
            return;
        }
        QList<TimingCall> calls;
        for (int i = 1; i < reply.words.size(); ++i)
            if (const auto call = parseCall(reply.words[i]))
                calls.append(*call);
        if (calls.size() != perCall * batch) {
            m_failure = Failure{Verdict::Crash, QStringLiteral("malformed timing reply")};
            failStage(m_failure->message);
            return;
        }
        for (int b = 0; b < batch; ++b) {
            const int it = j + b;
            if (!validate(it % count, plan[b].first, plan[b].second, it)) {
                m_correct = false;
                failStage(m_wrongDetail);
                return;
            }
            const bool candidateFirst = it % 2 == 0;
            const TimingCall &c = calls[perCall * b + (candidateFirst ? 0 : 1)];
            const TimingCall &r = calls[perCall * b + (candidateFirst ? 1 : 0)];
            candidate.add(std::max(0.0, c.eventMs - overheadMs));
            baseline.add(std::max(0.0, r.eventMs - overheadMs));
            if (library)
                libraryTiming.add(std::max(0.0, calls[perCall * b + 2].eventMs - overheadMs));
            tails.append(c.tailMs);
            gaps.append(c.wallMs - c.eventMs - baseGapMs);
        }
        j += batch;
        stop = candidate.decide(loop.nsecsElapsed() / 1e6);
        if (stop == AdaptiveTiming::Stop::Converged &&
            baseline.decide(loop.nsecsElapsed() / 1e6) == AdaptiveTiming::Stop::Continue)
            stop = AdaptiveTiming::Stop::Continue;
        if (m_cancel.load()) {
            m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled during timing")};
            failStage(m_failure->message);
            return;
        }
    }
    // Once more, untimed and read back in full: results must not drift or switch to a cache.
    {
        const int s = j % count, v = (s + j / count) % count;
        QByteArray ops = "batch";
        prepare(s, v, ops);
        ops += " call:r:" + number(2000 + s);
        readBack(referenceSlots[s], true, j, ops);
        for (const auto &buffer : outputsOf(referenceSlots[s]))
            ops += " fill:" + number(buffer.offset) + ':' + number(buffer.bytes);
        ops += " call:c:" + number(1000 + s);
        readBack(callSlots[s], true, j, ops);
        for (const auto &buffer : callSlots[s].buffers)
            if (!buffer.output)
                ops += " d2h:" + number(buffer.offset) + ':' + number(buffer.bytes);
        for (const auto &[offset, bytes] : layout.guards())
            ops += " d2h:" + number(offset) + ':' + number(bytes);
        if (!send(ops, m_options.cudaCallTimeoutMs * 2, QStringLiteral("the final check"))) {
            failStage(m_failure->message);
            return;
        }
        if (!validate(s, v, true, j)) {
            m_correct = false;
            failStage(QStringLiteral("after timing: ") + m_wrongDetail);
            return;
        }
        for (const auto &buffer : callSlots[s].buffers) {
            const QByteArray &values = inputs->sets[v].value(buffer.parameter);
            if (!buffer.output &&
                std::memcmp(base + buffer.offset, values.constData(), size_t(values.size())) != 0) {
                addFlag(QStringLiteral("input_modified"), QStringLiteral("timing"));
                m_correct = false;
                m_wrongDetail = QStringLiteral("modified an input during timing");
                failStage(m_wrongDetail);
                return;
            }
        }
        for (const auto &[offset, bytes] : layout.guards()) {
            if (!OutputChecker::guardIntact(base + offset, bytes)) {
                addFlag(QStringLiteral("guard_band_overwrite"), QStringLiteral("timing"));
                m_correct = false;
                m_wrongDetail = QStringLiteral("wrote outside its buffers during timing");
                failStage(m_wrongDetail);
                return;
            }
        }
    }

    const TimingStats candidateStats = candidate.stats();
    const TimingStats baselineStats = baseline.stats();
    m_result.candidateTiming = candidateStats;
    m_result.baselineTiming = baselineStats;
    m_result.candidateMs = candidateStats.median;
    m_result.baselineMs = baselineStats.median;
    if (candidateStats.median > 0.0)
        m_result.speedup = baselineStats.median / candidateStats.median;

    // Work the harness stream's events did not see: the device still busy after the stop
    // event, or wall time far beyond the event time.
    const double tailMs = median(tails);
    const double gapMs = median(gaps);
    if (tailMs > std::max(kSideStreamTailMs, 0.1 * candidateStats.median) ||
        gapMs > std::max(kSideStreamGapMs, 0.5 * candidateStats.median))
        addFlag(QStringLiteral("side_stream_work"),
                QStringLiteral("events %1 ms; device busy %2 ms longer, wall clock %3 ms longer")
                    .arg(candidateStats.median, 0, 'g', 3)
                    .arg(tailMs, 0, 'g', 3)
                    .arg(gapMs, 0, 'g', 3));

    const double bandwidth = m_slot->bandwidth(m_options.cudaCallTimeoutMs);
    const double peakFlops = m_slot->device().peakFp32FlopsPerSecond();
    const double bytes = task.bytesMoved(shape);
    const double flops = task.flops(shape);
    const double memoryMs = bandwidth > 0 ? bytes / bandwidth * 1e3 : 0.0;
    const double computeMs = peakFlops > 0 ? flops / peakFlops * 1e3 : 0.0;
    const double floorMs = std::max(memoryMs, computeMs);
    if (candidateStats.median > 0.0 && floorMs > 0.0)
        m_result.rooflineFraction = floorMs / candidateStats.median;
    const double impossibleMs = std::max(memoryMs / m_options.cudaBandwidthSlack, computeMs);
    if (candidateStats.n > 0 && candidateStats.median < impossibleMs)
        addFlag(QStringLiteral("implausibly_fast"), QStringLiteral("%1 ms, floor %2 ms")
                                                        .arg(candidateStats.median, 0, 'g', 3)
                                                        .arg(impossibleMs, 0, 'g', 3));
    if (m_result.speedup && *m_result.speedup > m_options.largeSpeedup)
        addFlag(QStringLiteral("large_speedup"),
                QStringLiteral("%1x").arg(*m_result.speedup, 0, 'f', 1));

    QJsonObject data{{QStringLiteral("shape"), shapeLabel(shape)},
                     {QStringLiteral("candidate"), candidateStats.toJson()},
                     {QStringLiteral("baseline"), baselineStats.toJson()},
                     {QStringLiteral("stop"), AdaptiveTiming::stopName(stop)},
                     {QStringLiteral("input_sets"), count},
                     {QStringLiteral("timer_overhead_ms"), overheadMs},
                     {QStringLiteral("median_tail_ms"), tailMs},
                     {QStringLiteral("median_wall_gap_ms"), gapMs},
                     {QStringLiteral("floor_ms"), floorMs},
                     {QStringLiteral("bandwidth_gbps"), bandwidth / 1e9},
                     {QStringLiteral("peak_tflops"), peakFlops / 1e12},
                     {QStringLiteral("achieved_gbps"),
                      candidateStats.median > 0 ? bytes / candidateStats.median / 1e6 : 0.0},
                     {QStringLiteral("achieved_tflops"),
                      candidateStats.median > 0 ? flops / candidateStats.median / 1e9 : 0.0},
                     {QStringLiteral("device"), m_slot->device().name},
                     {QStringLiteral("device_index"), m_slot->device().index},
                     {QStringLiteral("loop_ms"), loop.nsecsElapsed() / 1e6}};
    if (library) {
        const TimingStats libraryStats = libraryTiming.stats();
        data.insert(QStringLiteral("library_baseline"), libraryStats.toJson());
        if (candidateStats.median > 0.0)
            data.insert(QStringLiteral("speedup_vs_library"),
                        libraryStats.median / candidateStats.median);
    }
    addStage(stageName("timing"), true, timer.nsecsElapsed() / 1e6,
             QStringLiteral("%1 ms vs reference %2 ms (n=%3, %4), speedup %5x")
                 .arg(candidateStats.median, 0, 'g', 4)
                 .arg(baselineStats.median, 0, 'g', 4)
                 .arg(candidateStats.n)
                 .arg(AdaptiveTiming::stopName(stop))
                 .arg(m_result.speedup.value_or(0.0), 0, 'f', 2),
             data);
}

EvaluationResult CudaEvaluation::finish()
{
    if (m_slot) {
        if (!m_restartSandbox && m_slot->process().bufferSize() > 0) {
            // Drop the candidate; a fault it left behind shows up here.
            const SandboxProcess::Reply reply =
                m_slot->process().request("unload c", m_options.cudaCallTimeoutMs);
            if (reply.status != SandboxProcess::Status::Ok)
                m_restartSandbox = true;
        }
        m_isolation = m_slot->process().isolation();
        if (m_restartSandbox)
            m_slot->restart();
    }
    VerdictInputs inputs;
    inputs.compiled = m_compiled;
    inputs.objectBuilt = m_objectBuilt;
    inputs.correct = m_correct;
    inputs.flags = m_result.flags;
    if (m_failure) {
        if (m_failure->verdict == Verdict::CompileError)
            inputs.compiled = false, inputs.objectBuilt = false;
        else
            inputs.runtimeFailure = m_failure->verdict;
    }
    m_result.verdict = VerdictRules::decide(inputs);
    m_result.correct = m_correct && m_result.verdict != Verdict::Wrong;
    if (m_result.verdict != Verdict::Pass && m_result.verdict != Verdict::Flagged) {
        m_result.speedup.reset();
        m_result.candidateMs.reset();
        m_result.baselineMs.reset();
        m_result.rooflineFraction.reset();
    }
    QStringList blocking;
    for (const CheatFlag &flag : m_result.flags)
        if (flag.blocking)
            blocking << flag.id;
    switch (m_result.verdict) {
    case Verdict::Pass:
        m_result.summary =
            m_result.speedup ? QStringLiteral("correct; %1x the reference's speed (%2 ms vs %3 ms)")
                                   .arg(*m_result.speedup, 0, 'f', 2)
                                   .arg(*m_result.candidateMs, 0, 'g', 3)
                                   .arg(*m_result.baselineMs, 0, 'g', 3)
                             : QStringLiteral("correct (not timed)");
        break;
    case Verdict::Flagged:
        m_result.summary = QStringLiteral("blocked by %1").arg(blocking.join(QStringLiteral(", ")));
        break;
    case Verdict::Wrong:
    case Verdict::CompileError:
        m_result.summary = m_wrongDetail;
        break;
    default:
        m_result.summary = m_failure ? m_failure->message : QString();
    }
    addStage(stageName("verdict"), m_result.verdict == Verdict::Pass, 0.0, m_result.summary,
             {{QStringLiteral("verdict"), verdictName(m_result.verdict)},
              {QStringLiteral("isolation"), m_isolation}});
    return m_result;
}

EvaluationResult CudaEvaluation::run()
{
    const CudaAvailability &gpu = m_pool.availability();
    if (!gpu.usable) {
        m_failure = Failure{Verdict::Crash, QStringLiteral("no usable GPU: ") + gpu.reason};
        addStage(stageName("compile"), false, 0.0, m_failure->message);
        m_compiled = true;
        return finish();
    }
    // Every GPU of one machine is assumed to be of one architecture for compilation; the
    // first device decides.
    m_architecture = gpu.devices.first().architecture();
    if (!compileCandidate(false)) {
        if (!m_failure && !m_compiled && m_wrongDetail.isEmpty())
            m_wrongDetail = QStringLiteral("compilation failed");
        return finish();
    }
    if (!compileBaselines())
        return finish();
    QString error;
    m_reference = m_references.get(m_task, m_secret, 2, &error);
    if (!m_reference) {
        m_failure = Failure{Verdict::Crash, QStringLiteral("reference unavailable: ") + error};
        return finish();
    }
    CudaSandboxPool::Lease lease = m_pool.acquire(m_cancel);
    m_slot = lease.slot();
    if (!m_slot) {
        m_failure = Failure{Verdict::Timeout, QStringLiteral("cancelled while waiting for a GPU")};
        return finish();
    }
    if (!m_slot->ensureStarted(&error)) {
        m_failure =
            Failure{Verdict::Crash, QStringLiteral("cannot start the GPU sandbox: ") + error};
        m_slot = nullptr;
        return finish();
    }
    m_slot->countEvaluation();
    if (!compileCandidate(true) || !m_compiled) {
        if (!m_failure && m_wrongDetail.isEmpty())
            m_wrongDetail = QStringLiteral("compilation failed");
        return finish();
    }
    if (!loadIntoSandbox()) {
        addStage(stageName("correctness"), false, 0.0,
                 m_failure ? m_failure->message : m_wrongDetail);
        return finish();
    }
    checkCorrectness();
    bool blocking = false;
    for (const CheatFlag &flag : m_result.flags)
        blocking = blocking || flag.blocking;
    if (m_correct && !blocking && !m_failure && m_options.runTiming && !m_cancel.load())
        measureTiming();
    return finish();
}

} // namespace kiln
