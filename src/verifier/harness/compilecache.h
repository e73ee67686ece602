#pragma once

#include <QByteArray>
#include <QMutex>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QWaitCondition>
#include <optional>

namespace kiln {

// What compiling one source produced. Paths point into the cache, which outlives sandboxes.
struct CompiledArtifact
{
    bool ok = false;
    int exitCode = -1;
    double compileMs = 0.0; // of the original compilation (0 on a hit is not stored here)
    QString sharedObject;   // the .so to load (when ok)
    QString preprocessed;   // g++ -E text of the candidate file
    QByteArray object;      // the candidate's own object file (g++ -c)
    QString log;            // compiler diagnostics
    bool cached = false;    // true when served from the cache
};

// Compile cache keyed by sha256(source, shim, compiler identity, flags, task): identical
// candidates (frequent in a search) and every reference compile once per machine.
class CompileCache
{
public:
    explicit CompileCache(QString directory);

    QString directory() const { return m_directory; }
    static QString compilerIdentity(const QString &compiler); // "g++ (Debian 12.2.0...) ..."
    static QString key(const QString &source, const QString &shim, const QString &compilerId,
                       const QStringList &flags, const QString &task);

    // Held around "look up, else compile and store": while one holder compiles a key, another
    // claim of the same key waits and then finds the entry (a round of identical candidates,
    // or every evaluation's first need of a reference, compiles once instead of once each).
    class Claim
    {
    public:
        Claim(CompileCache &cache, QString key);
        ~Claim();
        Claim(const Claim &) = delete;
        Claim &operator=(const Claim &) = delete;

    private:
        CompileCache &m_cache;
        QString m_key;
    };

    std::optional<CompiledArtifact> lookup(const QString &key) const;
    // Copies what the compiler left in workDir (the file names of compileCommand) into the cache.
    CompiledArtifact store(const QString &key, const QString &workDir, int exitCode, double ms);

    // The file names used in the work directory.
    static QString sourceName() { return QStringLiteral("cand.cpp"); }
    static QString shimName() { return QStringLiteral("shim.cpp"); }
    static QString outputName() { return QStringLiteral("kernel.so"); }

private:
    QString m_directory;
    mutable QMutex m_mutex;
    QMutex m_claimMutex;
    QWaitCondition m_claimReleased;
    QSet<QString> m_claimed;
};

} // namespace kiln
