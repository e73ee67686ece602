// Kiln's bytecode of the interpreter's packages (TorchBytecode): compiled once into a folder of
// its cache, which a python3 -B given PYTHONPYCACHEPREFIX then loads instead of compiling; a
// package whose bytecode sits beside it gets none. Needs python3 only, not torch.
#include "verifier/torch/torchbytecode.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

class TestTorchBytecode : public QObject
{
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_dir;

    static void write(const QString &path, const QByteArray &text)
    {
        QVERIFY(QDir().mkpath(QFileInfo(path).path()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    }

    VerifierOptions options() const
    {
        VerifierOptions options = VerifierOptions::defaults();
        options.torchExtensionCache = m_dir.path() + u"/cache"_s;
        return options;
    }

private slots:
    void initTestCase()
    {
        m_python = QStandardPaths::findExecutable(u"python3"_s);
        if (m_python.isEmpty())
            QSKIP("no python3 here");
        write(m_dir.path() + u"/site/kilnprobe/__init__.py"_s, "VALUE = 41 + 1\n");
        // compileall fails on this one (exit status 1); the rest is still compiled and used.
        write(m_dir.path() + u"/site/broken_fixture.py"_s, "def broken(:\n");
    }

    void compiledOnceAndLoadedFromThePrefix()
    {
        const QString site = m_dir.path() + u"/site"_s;
        const TorchBytecode::Outcome first =
            TorchBytecode::prepare(options(), m_python, u"9.9"_s, site, false);
        QVERIFY2(!first.folder.isEmpty(), qPrintable(first.note));
        QVERIFY2(first.note.contains(u"compiled"_s), qPrintable(first.note));
        QVERIFY(first.folder.startsWith(m_dir.path() + u"/cache/"_s));
        // A sandbox's python3: -B (writes no bytecode), the prefix in its environment.
        QProcess python;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"PYTHONPYCACHEPREFIX"_s, first.folder);
        environment.insert(u"PYTHONPATH"_s, site);
        python.setProcessEnvironment(environment);
        python.start(m_python,
                     {u"-B"_s, u"-v"_s, u"-c"_s, u"import kilnprobe; print(kilnprobe.VALUE)"_s});
        QVERIFY(python.waitForFinished(60000));
        QCOMPARE(python.readAllStandardOutput().trimmed(), QByteArray("42"));
        const QString log = QString::fromUtf8(python.readAllStandardError());
        // Python's verbose import log names the bytecode it matched against the source.
        QVERIFY2(log.contains(first.folder) && log.contains(u"matches"_s) &&
                     log.contains(u"kilnprobe/__init__.py"_s),
                 qPrintable(log.right(2000)));
        // Kept: the second verifier of the machine compiles nothing.
        const TorchBytecode::Outcome second =
            TorchBytecode::prepare(options(), m_python, u"9.9"_s, site, false);
        QCOMPARE(second.folder, first.folder);
        QVERIFY2(second.note.contains(u"kept"_s), qPrintable(second.note));
    }

    void packagesWithTheirOwnBytecodeGetNone()
    {
        const TorchBytecode::Outcome outcome =
            TorchBytecode::prepare(options(), m_python, u"9.9"_s, m_dir.path() + u"/site"_s, true);
        QVERIFY(outcome.folder.isEmpty());
        const TorchBytecode::Outcome missing =
            TorchBytecode::prepare(options(), m_python, u"9.9"_s, m_dir.path() + u"/none"_s, false);
        QVERIFY(missing.folder.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTorchBytecode)
#include "tst_torchbytecode.moc"
