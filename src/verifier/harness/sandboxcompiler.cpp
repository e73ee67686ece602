#include "verifier/harness/sandboxcompiler.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QRegularExpression>

namespace kiln {

SandboxCompiler::Outcome SandboxCompiler::compile(SandboxProcess &sandbox, CompileCache &cache,
                                                  const VerifierOptions &options,
                                                  const QString &taskName, const QString &source,
                                                  const QString &shim,
                                                  const std::atomic<bool> *cancel)
{
    Outcome outcome;
    QElapsedTimer timer;
    timer.start();
    const QString key =
        CompileCache::key(source, shim, CompileCache::compilerIdentity(options.compiler),
                          options.compileFlags, taskName);
    const CompileCache::Claim claim(cache, key);
    if (auto hit = cache.lookup(key)) {
        outcome.artifact = *hit;
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    const QDir work(sandbox.workDir());
    auto write = [&](const QString &name, const QString &text) {
        QFile file(work.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) >= 0;
    };
    if (!write(CompileCache::sourceName(), source) || !write(CompileCache::shimName(), shim)) {
        outcome.error = QStringLiteral("cannot write the source into the work directory");
        outcome.status = SandboxProcess::Status::Error;
        return outcome;
    }
    // -save-temps=obj keeps the preprocessed text and the candidate's own object from the same
    // single compiler run: the screen sees exactly what was compiled.
    QStringList command{options.compiler};
    command << options.compileFlags << QStringLiteral("-Wl,--no-undefined")
            << QStringLiteral("-save-temps=obj") << QStringLiteral("-o")
            << CompileCache::outputName() << CompileCache::sourceName() << CompileCache::shimName();
    const SandboxProcess::Reply reply =
        sandbox.request("compile " + command.join(QLatin1Char(' ')).toLocal8Bit(),
                        options.compileTimeoutMs, cancel);
    outcome.status = reply.status;
    if (reply.status != SandboxProcess::Status::Ok) {
        outcome.error = reply.status == SandboxProcess::Status::Error
                            ? QString::fromUtf8(reply.line)
                            : sandbox.describeEnd();
        outcome.ms = timer.nsecsElapsed() / 1e6;
        return outcome;
    }
    const int exitCode = reply.words.value(0).toInt();
    const double compilerMs = reply.words.value(1).toDouble();
    outcome.artifact = cache.store(key, sandbox.workDir(), exitCode, compilerMs);
    outcome.ms = timer.nsecsElapsed() / 1e6;
    return outcome;
}

QJsonArray SandboxCompiler::parseDiagnostics(const QString &log, const QString &file)
{
    static const QRegularExpression pattern(
        QStringLiteral("^(?:[^:\\n]*/)?([^:/\\n]+):(\\d+):(?:(\\d+):)? "
                       "(fatal error|error|warning|note): (.*)$"),
        QRegularExpression::MultilineOption);
    QJsonArray diagnostics;
    auto it = pattern.globalMatch(log);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        if (match.captured(1) != file)
            continue;
        diagnostics.append(QJsonObject{{QStringLiteral("line"), match.captured(2).toInt()},
                                       {QStringLiteral("column"), match.captured(3).toInt()},
                                       {QStringLiteral("severity"), match.captured(4)},
                                       {QStringLiteral("message"), match.captured(5)}});
    }
    // Linker errors name no line; keep them so the student sees why.
    static const QRegularExpression linker(QStringLiteral("undefined reference to `([^']+)'"));
    auto links = linker.globalMatch(log);
    while (links.hasNext()) {
        const QRegularExpressionMatch match = links.next();
        diagnostics.append(
            QJsonObject{{QStringLiteral("line"), 0},
                        {QStringLiteral("column"), 0},
                        {QStringLiteral("severity"), QStringLiteral("error")},
                        {QStringLiteral("message"),
                         QStringLiteral("undefined reference to ") + match.captured(1)}});
    }
    return diagnostics;
}

} // namespace kiln
