// The compile cache's identity of a compiler and its entries: an upgraded compiler must not be
// served the old one's artifacts, and what is stored comes back as it was.

#include "verifier/harness/compilecache.h"
#include "verifier/harness/verifieroptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace kiln;

namespace {

// A stand-in compiler whose --version prints the given text.
QString fakeCompiler(const QString &directory, const QString &name, const QString &version)
{
    const QString path = QDir(directory).filePath(name);
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write("#!/bin/sh\ncat <<'EOF'\n" + version.toUtf8() + "\nEOF\n");
    script.close();
    script.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TestCompileCache : public QObject
{
    Q_OBJECT

private slots:
    // nvcc prints the same first line for every release; the version comes lines later.
    // The window and kiln-cli have different organisation names; their compiled candidates
    // must still land in one cache.
    void defaultCacheIsSharedByEveryProgram()
    {
        qunsetenv("KILN_CACHE_DIR");
        const QString expected =
            QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
            QStringLiteral("/kiln/compile");
        for (const QString &organisation : {QStringLiteral("Kiln"), QStringLiteral("kiln")}) {
            QCoreApplication::setOrganizationName(organisation);
            QCOMPARE(VerifierOptions::defaults().cacheDirectory, expected);
        }
    }

    void identityFollowsTheWholeVersionText()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString banner = QStringLiteral("nvcc: NVIDIA (R) Cuda compiler driver\n"
                                              "Cuda compilation tools, release %1, V%1.88");
        const QString old = fakeCompiler(dir.path(), QStringLiteral("nvcc-12"), banner.arg(12.9));
        const QString upgraded =
            fakeCompiler(dir.path(), QStringLiteral("nvcc-13"), banner.arg(13.0));
        const QString oldId = CompileCache::compilerIdentity(old);
        QVERIFY(oldId.contains(QLatin1String("release 12.9")));
        QVERIFY(CompileCache::compilerIdentity(upgraded) != oldId);
        QCOMPARE(CompileCache::compilerIdentity(old), oldId); // stable for one compiler

        const QString source = QStringLiteral("__global__ void k() {}");
        const QStringList flags{QStringLiteral("-arch=sm_90")};
        QVERIFY(CompileCache::key(source, {}, oldId, flags, QStringLiteral("t")) !=
                CompileCache::key(source, {}, CompileCache::compilerIdentity(upgraded), flags,
                                  QStringLiteral("t")));
    }

    void keySeparatesEveryPart()
    {
        const QString base =
            CompileCache::key(QStringLiteral("s"), QStringLiteral("h"), QStringLiteral("c"),
                              {QStringLiteral("-O2")}, QStringLiteral("t"));
        QCOMPARE(base.size(), 64); // sha256, hex
        QVERIFY(base != CompileCache::key(QStringLiteral("s2"), QStringLiteral("h"),
                                          QStringLiteral("c"), {QStringLiteral("-O2")},
                                          QStringLiteral("t")));
        QVERIFY(base != CompileCache::key(QStringLiteral("s"), QStringLiteral("h"),
                                          QStringLiteral("c"), {QStringLiteral("-O3")},
                                          QStringLiteral("t")));
        QVERIFY(base != CompileCache::key(QStringLiteral("s"), QStringLiteral("h"),
                                          QStringLiteral("c"), {QStringLiteral("-O2")},
                                          QStringLiteral("u")));
        // Parts are length-prefixed: moving text from one part to the next changes the key.
        QVERIFY(CompileCache::key(QStringLiteral("ab"), QStringLiteral("c"), {}, {}, {}) !=
                CompileCache::key(QStringLiteral("a"), QStringLiteral("bc"), {}, {}, {}));
    }

    // Claims of one key are held one at a time (so a twin waits, then hits the cache); claims of
    // different keys do not wait for each other.
    void claimsOfOneKeyTakeTurns()
    {
        QTemporaryDir cacheDir;
        CompileCache cache(cacheDir.path());
        auto maxHolders = [&cache](const QStringList &keys) {
            std::atomic<int> holders{0}, most{0};
            std::vector<std::thread> threads;
            for (const QString &key : keys)
                threads.emplace_back([&, key] {
                    const CompileCache::Claim claim(cache, key);
                    const int now = ++holders;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    std::this_thread::sleep_for(std::chrono::milliseconds(30));
                    --holders;
                });
            for (std::thread &t : threads)
                t.join();
            return most.load();
        };
        QCOMPARE(maxHolders(QStringList(4, QStringLiteral("same"))), 1);
        QVERIFY(maxHolders({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                            QStringLiteral("d")}) >= 2);
    }

    void storedEntriesComeBack()
    {
        QTemporaryDir cacheDir, work;
        QVERIFY(cacheDir.isValid() && work.isValid());
        CompileCache cache(cacheDir.path());
        const QString key = CompileCache::key(QStringLiteral("src"), {}, QStringLiteral("id"), {},
                                              QStringLiteral("t"));
        QVERIFY(!cache.lookup(key).has_value());

        QFile so(QDir(work.path()).filePath(CompileCache::outputName()));
        QVERIFY(so.open(QIODevice::WriteOnly));
        so.write("\x7f"
                 "ELF stand-in");
        so.close();
        QFile log(QDir(work.path()).filePath(QStringLiteral("compile.log")));
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("ptxas info: Used 12 registers");
        log.close();
        const CompiledArtifact stored = cache.store(key, work.path(), 0, 123.0);
        QVERIFY(stored.ok);

        const std::optional<CompiledArtifact> hit = cache.lookup(key);
        QVERIFY(hit.has_value());
        QVERIFY(hit->ok && hit->cached);
        QCOMPARE(hit->compileMs, 123.0);
        QCOMPARE(hit->log, QStringLiteral("ptxas info: Used 12 registers"));
        QFile copy(hit->sharedObject);
        QVERIFY(copy.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), QByteArray("\x7f"
                                            "ELF stand-in"));

        // A failed compilation is cached too (with its log), and comes back as a failure.
        QTemporaryDir failedWork;
        const QString failedKey = CompileCache::key(QStringLiteral("broken"), {},
                                                    QStringLiteral("id"), {}, QStringLiteral("t"));
        QVERIFY(!cache.store(failedKey, failedWork.path(), 1, 5.0).ok);
        const std::optional<CompiledArtifact> failed = cache.lookup(failedKey);
        QVERIFY(failed.has_value());
        QVERIFY(!failed->ok);
        QCOMPARE(failed->exitCode, 1);
    }
};

QTEST_GUILESS_MAIN(TestCompileCache)
#include "tst_compilecache.moc"
