#include "verifier/harness/compilecache.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSaveFile>
#include <QUuid>

namespace kiln {

namespace {

QByteArray readFile(const QString &path)
{
    if (path.isEmpty())
        return {};
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// g++ -save-temps=obj names its temporaries "<output>-<source>.ii" / ".o"; other drivers
// may not prefix them, so look for both.
QString findTemporary(const QString &workDir, const QString &suffix)
{
    const QDir dir(workDir);
    const QStringList matches =
        dir.entryList({QStringLiteral("*cand") + suffix}, QDir::Files, QDir::Name);
    return matches.isEmpty() ? QString() : dir.filePath(matches.first());
}

} // namespace

CompileCache::CompileCache(QString directory) : m_directory(std::move(directory))
{
    QDir().mkpath(m_directory);
}

CompileCache::Claim::Claim(CompileCache &cache, QString key) : m_cache(cache), m_key(std::move(key))
{
    QMutexLocker lock(&m_cache.m_claimMutex);
    while (m_cache.m_claimed.contains(m_key))
        m_cache.m_claimReleased.wait(&m_cache.m_claimMutex);
    m_cache.m_claimed.insert(m_key);
}

CompileCache::Claim::~Claim()
{
    QMutexLocker lock(&m_cache.m_claimMutex);
    m_cache.m_claimed.remove(m_key);
    m_cache.m_claimReleased.wakeAll();
}

QString CompileCache::compilerIdentity(const QString &compiler)
{
    static QMutex mutex;
    static QHash<QString, QString> identities;
    QMutexLocker lock(&mutex);
    auto it = identities.constFind(compiler);
    if (it != identities.constEnd())
        return *it;
    QProcess process;
    process.start(compiler, {QStringLiteral("--version")});
    process.waitForFinished(10000);
    // The whole text: nvcc's first line is the same for every release (the version is on the
    // fourth), so a toolkit upgrade would otherwise reuse the old toolkit's artifacts.
    QString identity = QString::fromLocal8Bit(process.readAllStandardOutput()).trimmed();
    // -march=native differs per machine: fold the CPU model in.
    QFile cpuInfo(QStringLiteral("/proc/cpuinfo"));
    if (cpuInfo.open(QIODevice::ReadOnly)) {
        const QByteArray text = cpuInfo.readAll();
        const qsizetype at = text.indexOf("flags");
        identity +=
            QLatin1Char('|') +
            QString::fromLatin1(QCryptographicHash::hash(text.mid(at, text.indexOf('\n', at) - at),
                                                         QCryptographicHash::Sha1)
                                    .toHex());
    }
    identities.insert(compiler, identity);
    return identity;
}

QString CompileCache::key(const QString &source, const QString &shim, const QString &compilerId,
                          const QStringList &flags, const QString &task)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QString &part : {source, shim, compilerId, flags.join(QLatin1Char(' ')), task}) {
        const QByteArray bytes = part.toUtf8();
        const qint64 size = bytes.size();
        hash.addData(QByteArrayView(reinterpret_cast<const char *>(&size), sizeof size));
        hash.addData(bytes);
    }
    return QString::fromLatin1(hash.result().toHex());
}

std::optional<CompiledArtifact> CompileCache::lookup(const QString &key) const
{
    const QDir entry(m_directory + QLatin1Char('/') + key);
    const QByteArray meta = readFile(entry.filePath(QStringLiteral("meta.json")));
    if (meta.isEmpty())
        return std::nullopt;
    const QJsonObject object = QJsonDocument::fromJson(meta).object();
    CompiledArtifact artifact;
    artifact.ok = object.value(QStringLiteral("ok")).toBool();
    artifact.exitCode = object.value(QStringLiteral("exit_code")).toInt();
    artifact.compileMs = object.value(QStringLiteral("ms")).toDouble();
    artifact.sharedObject = entry.filePath(outputName());
    if (artifact.ok && !QFile::exists(artifact.sharedObject))
        return std::nullopt;
    artifact.preprocessed = QString::fromUtf8(readFile(entry.filePath(QStringLiteral("cand.ii"))));
    artifact.object = readFile(entry.filePath(QStringLiteral("cand.o")));
    artifact.log = QString::fromUtf8(readFile(entry.filePath(QStringLiteral("compile.log"))));
    artifact.cached = true;
    return artifact;
}

CompiledArtifact CompileCache::store(const QString &key, const QString &workDir, int exitCode,
                                     double ms)
{
    CompiledArtifact artifact;
    artifact.exitCode = exitCode;
    artifact.compileMs = ms;
    const QString soPath = QDir(workDir).filePath(outputName());
    artifact.ok = exitCode == 0 && QFile::exists(soPath);
    artifact.preprocessed =
        QString::fromUtf8(readFile(findTemporary(workDir, QStringLiteral(".ii"))));
    artifact.object = readFile(findTemporary(workDir, QStringLiteral(".o")));
    artifact.log =
        QString::fromUtf8(readFile(QDir(workDir).filePath(QStringLiteral("compile.log"))));

    // Build the entry beside its final place, then rename: readers never see half of one.
    QMutexLocker lock(&m_mutex);
    const QString finalPath = m_directory + QLatin1Char('/') + key;
    const QString staging =
        finalPath + QStringLiteral(".tmp-") + QUuid::createUuid().toString(QUuid::Id128);
    QDir().mkpath(staging);
    const QDir stage(staging);
    if (artifact.ok)
        QFile::copy(soPath, stage.filePath(outputName()));
    auto write = [&](const QString &name, const QByteArray &bytes) {
        QFile file(stage.filePath(name));
        if (file.open(QIODevice::WriteOnly))
            file.write(bytes);
    };
    write(QStringLiteral("cand.ii"), artifact.preprocessed.toUtf8());
    write(QStringLiteral("cand.o"), artifact.object);
    write(QStringLiteral("compile.log"), artifact.log.toUtf8());
    write(QStringLiteral("meta.json"),
          QJsonDocument(QJsonObject{{QStringLiteral("ok"), artifact.ok},
                                    {QStringLiteral("exit_code"), exitCode},
                                    {QStringLiteral("ms"), ms}})
              .toJson(QJsonDocument::Compact));
    // An identical entry may have landed meanwhile (another sandbox, another process): keep
    // it, a loaded object must never be replaced under a running sandbox.
    if (QDir(finalPath).exists() || !QDir().rename(staging, finalPath))
        QDir(staging).removeRecursively();
    artifact.sharedObject = QDir(finalPath).filePath(outputName());
    if (!QFile::exists(artifact.sharedObject) && artifact.ok)
        artifact.sharedObject = soPath; // rename lost a race: the other entry is identical
    return artifact;
}

} // namespace kiln
