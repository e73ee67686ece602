#include "verifier/cuda/cudacompiler.h"

#include "verifier/screen/native/symbolnames.h"

#include "verifier/cuda/cudasandboxslot.h"
#include "verifier/harness/sandboxcompiler.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace kiln {

namespace {

bool writeText(const QDir &dir, const QString &name, const QByteArray &bytes)
{
    QFile file(dir.filePath(name));
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray readText(const QDir &dir, const QString &name)
{
    QFile file(dir.filePath(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Starts a compiler's sandbox in its work directory and writes the files it compiles; false
// (with the outcome saying why) when either fails.
bool startCompiler(SandboxProcess &sandbox, const QTemporaryDir &work,
                   const VerifierOptions &options, const QString &what,
                   const QList<QPair<QString, QByteArray>> &files, CudaCompiler::Outcome &outcome)
{
    QString error;
    if (!work.isValid() || !sandbox.start(work.path(), 4096, options.startTimeoutMs, &error)) {
        outcome.status = SandboxProcess::Status::Error;
        outcome.error = QStringLiteral("cannot start the %1: ").arg(what) + error;
        return false;
    }
    const QDir dir(work.path());
    for (const auto &[name, bytes] : files) {
        if (!writeText(dir, name, bytes)) {
            outcome.status = SandboxProcess::Status::Error;
            outcome.error = QStringLiteral("cannot write the source into the work directory");
            return false;
        }
    }
    return true;
}

// The nvcc command lines of one compilation.
struct NvccSteps
{
    QStringList object, device, link;
};

NvccSteps nvccSteps(const VerifierOptions &options, const QString &architecture,
                    const QStringList &libraries)
{
    const QString arch = QStringLiteral("-arch=") + architecture;
    const QString fpic = QStringLiteral("-Xcompiler=-fPIC");
    // The object (with ptxas's resource report), keeping nvcc's own preprocessed texts for the
    // screen: cand.cpp4.ii for the host (host code behind #ifndef __CUDA_ARCH__) and
    // cand.cpp1.ii for the device; then the shared object against the shared runtime.
    NvccSteps steps;
    QStringList &object = steps.object, &device = steps.device, &link = steps.link;
    object << options.nvcc << options.nvccFlags << arch << fpic << QStringLiteral("-Xptxas=-v")
           << QStringLiteral("-keep") << QStringLiteral("-c") << CudaCompiler::sourceName()
           << QStringLiteral("-o") << QStringLiteral("cand.o");
    // A front-end error in the host pass ends nvcc before the device pass; the screen still
    // reads the device text.
    device << options.nvcc << options.nvccFlags << arch << QStringLiteral("-E")
           << QStringLiteral("-x") << QStringLiteral("cu") << CudaCompiler::sourceName()
           << QStringLiteral("-o") << QStringLiteral("cand.cpp1.ii");
    link << options.nvcc << arch << fpic << QStringLiteral("-shared")
         << QStringLiteral("-cudart=shared") << QStringLiteral("-Xlinker=--no-undefined")
         << QStringLiteral("cand.o") << QStringLiteral("shim.cpp") << QStringLiteral("-o")
         << CompileCache::outputName();
    for (const QString &library : libraries)
        link << QStringLiteral("-l") + library;
    return steps;
}

} // namespace

QJsonArray CudaCompiler::parseDiagnostics(const QString &log)
{
    QJsonArray diagnostics = SandboxCompiler::parseDiagnostics(log, sourceName());
    // nvcc and NVRTC: "cand.cu(12): error: ..."
    static const QRegularExpression pattern(
        QStringLiteral("^(?:[^(\\n]*/)?cand\\.cu\\((\\d+)\\): (catastrophic error|error|warning)"
                       "(?: #\\S+)?: (.*)$"),
        QRegularExpression::MultilineOption);
    auto it = pattern.globalMatch(log);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        diagnostics.append(
            QJsonObject{{QStringLiteral("line"), match.captured(1).toInt()},
                        {QStringLiteral("column"), 0},
                        {QStringLiteral("severity"), match.captured(2) == QLatin1String("warning")
                                                         ? QStringLiteral("warning")
                                                         : QStringLiteral("error")},
                        {QStringLiteral("message"), match.captured(3).trimmed()}});
    }
    return diagnostics;
}

QJsonArray CudaCompiler::parseResourceUsage(const QString &log)
{
    QJsonArray kernels;
    QJsonObject current;
    static const QRegularExpression entry(QStringLiteral("Compiling entry function '([^']+)'"));
    static const QRegularExpression spills(QStringLiteral("(\\d+) bytes spill stores"));
    static const QRegularExpression used(QStringLiteral("Used (\\d+) registers"));
    static const QRegularExpression smem(QStringLiteral("(\\d+) bytes smem"));
    auto flush = [&] {
        if (!current.isEmpty())
            kernels.append(current);
        current = {};
    };
    for (const QString &line : log.split(QLatin1Char('\n'))) {
        if (const auto m = entry.match(line); m.hasMatch()) {
            flush();
            current = {{QStringLiteral("name"), SymbolNames::demangled(m.captured(1))},
                       {QStringLiteral("registers"), 0},
                       {QStringLiteral("shared_bytes"), 0},
                       {QStringLiteral("spill_bytes"), 0}};
            continue;
        }
        if (current.isEmpty())
            continue;
        if (const auto m = spills.match(line); m.hasMatch())
            current[QStringLiteral("spill_bytes")] = m.captured(1).toInt();
        if (const auto m = used.match(line); m.hasMatch()) {
            current[QStringLiteral("registers")] = m.captured(1).toInt();
            if (const auto s = smem.match(line); s.hasMatch())
                current[QStringLiteral("shared_bytes")] = s.captured(1).toInt();
        }
    }
    flush();
    return kernels;
}

CudaCompiler::Outcome CudaCompiler::nvcc(const VerifierOptions &options, CompileCache &cache,
                                         const QString &taskName, const QString &source,
                                         const QString &shim, const QString &architecture,
                                         const QStringList &libraries,
                                         const std::atomic<bool> *cancel)
{
    Outcome outcome;
    QElapsedTimer timer;
    timer.start();
    QStringList flags = options.nvccFlags;
    flags << QStringLiteral("-arch=") + architecture << libraries;
    const QString key = CompileCache::key(
        source, shim, QStringLiteral("nvcc|") + CompileCache::compilerIdentity(options.nvcc), flags,
        taskName);
    const CompileCache::Claim claim(cache, key);
    if (auto hit = cache.lookup(key)) {
        outcome.artifact = *hit;
        outcome.kernels = parseResourceUsage(hit->log);
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    if (options.nvcc.isEmpty()) {
        outcome.status = SandboxProcess::Status::Error;
        outcome.error = QStringLiteral("nvcc not found (set KILN_NVCC or CUDA_HOME)");
        return outcome;
    }
    QTemporaryDir work(options.workRoot + QStringLiteral("/kiln-nvcc-XXXXXX"));
    SandboxSettings settings = options.sandbox;
    settings.addressSpaceMb = qMax<qint64>(settings.addressSpaceMb, 16384); // cicc, ptxas
    settings.cpuSeconds = qMax(settings.cpuSeconds, 300);
    SandboxProcess sandbox(settings);
    if (!startCompiler(
            sandbox, work, options, QStringLiteral("compile sandbox"),
            {{sourceName(), source.toUtf8()}, {QStringLiteral("shim.cpp"), shim.toUtf8()}},
            outcome))
        return outcome;
    const QDir dir(work.path());
    const NvccSteps steps = nvccSteps(options, architecture, libraries);
    QByteArray log;
    int exitCode = 0;
    double compilerMs = 0.0;
    auto step = [&](const QStringList &command, bool logged) {
        const SandboxProcess::Reply reply =
            sandbox.request("compile " + command.join(QLatin1Char(' ')).toLocal8Bit(),
                            options.compileTimeoutMs, cancel);
        if (reply.status != SandboxProcess::Status::Ok) {
            outcome.status = reply.status;
            outcome.error = reply.status == SandboxProcess::Status::Error
                                ? QString::fromUtf8(reply.line)
                                : sandbox.describeEnd();
            return false;
        }
        if (logged) { // the device pass repeats the object's diagnostics
            log += readText(dir, QStringLiteral("compile.log"));
            exitCode = exitCode != 0 ? exitCode : reply.words.value(0).toInt();
            compilerMs += reply.words.value(1).toDouble();
        }
        return true;
    };
    const bool ran = step(steps.object, true) &&
                     (QFileInfo::exists(dir.filePath(QStringLiteral("cand.cpp1.ii"))) ||
                      step(steps.device, false)) &&
                     (exitCode != 0 || step(steps.link, true));
    if (!ran) {
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    writeText(dir, QStringLiteral("cand.ii"),
              readText(dir, QStringLiteral("cand.cpp1.ii")) + '\n' +
                  readText(dir, QStringLiteral("cand.cpp4.ii")));
    sandbox.request("quit", 500);
    writeText(dir, QStringLiteral("compile.log"), log);
    outcome.artifact = cache.store(key, work.path(), exitCode, compilerMs);
    outcome.kernels = parseResourceUsage(outcome.artifact.log);
    outcome.ms = timer.nsecsElapsed() / 1e6;
    return outcome;
}

CudaCompiler::Outcome CudaCompiler::nvrtc(const VerifierOptions &options, CompileCache &cache,
                                          const QString &taskName, const QString &source,
                                          const QString &architecture,
                                          const std::atomic<bool> *cancel)
{
    Outcome outcome;
    QElapsedTimer timer;
    timer.start();
    const QString key = CompileCache::key(
        source, QString(),
        // NVRTC comes with the toolkit nvcc belongs to: its version stands in.
        QStringLiteral("nvrtc|") +
            (options.nvcc.isEmpty() ? QString() : CompileCache::compilerIdentity(options.nvcc)),
        {architecture}, taskName);
    const CompileCache::Claim claim(cache, key);
    if (auto hit = cache.lookup(key)) {
        outcome.artifact = *hit;
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    // A process of its own without a device context, outside the GPU's queue: compiling never
    // holds the GPU, and a compiler hang ends with this process.
    QTemporaryDir work(options.workRoot + QStringLiteral("/kiln-nvrtc-XXXXXX"));
    SandboxProcess compiler(CudaSandboxSlot::settings(options, {QStringLiteral("--compile-only")}));
    if (!startCompiler(compiler, work, options, QStringLiteral("NVRTC sandbox"),
                       {{sourceName(), source.toUtf8()}}, outcome))
        return outcome;
    const QDir dir(work.path());
    // The toolkit's headers (cuda_fp16.h, cooperative_groups ...) for #include in device code.
    const QString includes =
        options.nvcc.isEmpty()
            ? QString()
            : QFileInfo(options.nvcc).dir().filePath(QStringLiteral("../include"));
    QByteArray request = "nvrtc " + architecture.toLatin1() + ' ' +
                         dir.filePath(sourceName()).toLocal8Bit() + ' ' +
                         dir.filePath(CompileCache::outputName()).toLocal8Bit() + ' ' +
                         dir.filePath(QStringLiteral("compile.log")).toLocal8Bit();
    if (!includes.isEmpty() && QFileInfo(includes).isDir())
        request += ' ' + QDir::cleanPath(includes).toLocal8Bit();
    const SandboxProcess::Reply reply = compiler.request(request, options.compileTimeoutMs, cancel);
    outcome.status = reply.status;
    if (reply.status != SandboxProcess::Status::Ok) {
        outcome.error = reply.status == SandboxProcess::Status::Error
                            ? QString::fromUtf8(reply.line)
                            : compiler.describeEnd();
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    compiler.request("quit", 500);
    // The screen reads the source itself (NVRTC has no preprocessed output).
    writeText(dir, QStringLiteral("cand.ii"), source.toUtf8());
    outcome.artifact = cache.store(key, work.path(), reply.words.value(0).toInt(),
                                   reply.words.value(1).toDouble());
    outcome.ms = timer.nsecsElapsed() / 1e6;
    return outcome;
}

} // namespace kiln
