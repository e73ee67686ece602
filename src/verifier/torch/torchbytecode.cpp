#include "verifier/torch/torchbytecode.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QProcess>

namespace kiln {

namespace {

constexpr int kCompileTimeoutMs = 15 * 60 * 1000;
constexpr auto kMarker = "kiln-complete";

} // namespace

TorchBytecode::Outcome TorchBytecode::prepare(const VerifierOptions &options, const QString &python,
                                              const QString &torchVersion,
                                              const QString &sitePackages, bool bytecodeBeside)
{
    if (bytecodeBeside)
        return {{}, QStringLiteral("torch's modules have their bytecode")};
    if (sitePackages.isEmpty() || !QFileInfo(sitePackages).isDir())
        return {{}, QStringLiteral("no packages folder to compile")};
    const QByteArray key = QCryptographicHash::hash(
        (python + u'|' + torchVersion + u'|' + sitePackages).toUtf8(), QCryptographicHash::Sha256);
    const QString folder = options.torchExtensionFolder() + QStringLiteral("/kiln-pycache/") +
                           QString::fromLatin1(key.toHex().left(16));
    if (!QDir().mkpath(folder))
        return {{}, QStringLiteral("cannot create %1").arg(folder), true};
    // One compiler per folder, across Kiln processes; the others wait for it.
    QLockFile lock(folder + QStringLiteral("/kiln-lock"));
    lock.setStaleLockTime(0);
    if (!lock.tryLock(kCompileTimeoutMs))
        return {{}, QStringLiteral("another Kiln is still compiling %1").arg(folder), true};
    const QString marker = folder + QLatin1Char('/') + QLatin1String(kMarker);
    if (QFile::exists(marker))
        return {folder, QStringLiteral("bytecode kept in %1").arg(folder)};
    QElapsedTimer timer;
    timer.start();
    QProcess compile;
    compile.setProcessChannelMode(QProcess::MergedChannels);
    compile.start(python, {QStringLiteral("-X"), QStringLiteral("pycache_prefix=") + folder,
                           QStringLiteral("-m"), QStringLiteral("compileall"), QStringLiteral("-q"),
                           QStringLiteral("-j"), QStringLiteral("0"), sitePackages});
    // compileall exits 1 when a single file does not compile (a test fixture of some
    // package): the rest is still there and used.
    if (!compile.waitForFinished(kCompileTimeoutMs) ||
        compile.exitStatus() != QProcess::NormalExit) {
        compile.kill();
        return {{},
                QStringLiteral("compiling %1 failed: %2")
                    .arg(sitePackages, QString::fromUtf8(compile.readAll().right(300)))};
    }
    QFile done(marker);
    if (done.open(QIODevice::WriteOnly))
        done.write(QByteArray::number(timer.elapsed()));
    return {folder, QStringLiteral("bytecode compiled into %1 in %2 s")
                        .arg(folder)
                        .arg(timer.elapsed() / 1000.0, 0, 'f', 1)};
}

} // namespace kiln
