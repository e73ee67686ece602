// What a KernelBench module reaches from inside kiln-torch-sandbox: a probe module, imported by
// the worker through the real protocol (no screen in the way), tries to read the workspace
// database, a file in the user's home and another process's command line, and reports what it
// got in the error that ends its import. Runs on torch's CPU device (here when python3 has
// torch, and on the GPU machine); skipped without torch or without Landlock.
#include "confinementprobe.h"
#include "torchpython.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchprocess.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>
#include <unistd.h>

using namespace kiln;

namespace {

QString probeModule(const QString &database, const QString &homeFile)
{
    return QStringLiteral(R"(import os

def attempt(path):
    try:
        with open(path, "rb") as f:
            return "read%d" % len(f.read())
    except OSError as error:
        return "errno%d" % error.errno

def listing(path):
    try:
        return "listed%d" % len(os.listdir(path))
    except OSError as error:
        return "errno%d" % error.errno

found = ["database=" + attempt("@DATABASE@"), "home=" + attempt("@HOMEFILE@"),
         "homedir=" + listing(os.path.dirname("@HOMEFILE@")),
         "engine=" + attempt("/proc/%d/cmdline" % os.getppid()), "proc=" + listing("/proc"),
         "own=" + attempt("/proc/self/status")]
raise RuntimeError("probe " + " ".join(found))
)")
        .replace(QStringLiteral("@DATABASE@"), database)
        .replace(QStringLiteral("@HOMEFILE@"), homeFile);
}

} // namespace

class TestTorchConfinement : public QObject
{
    Q_OBJECT

private slots:
    void aModuleReachesNothingOutside();
};

void TestTorchConfinement::aModuleReachesNothingOutside()
{
    VerifierOptions options = VerifierOptions::defaults();
    options.python = kiln::test::pythonWithTorch(options.python);
    if (options.python.isEmpty())
        QSKIP("no python3 with torch here");
    options.torchDevice = QStringLiteral("cpu");
    const TorchEnvironment environment = TorchEnvironment::probe(options);
    QVERIFY2(environment.usable, qPrintable(environment.reason));

    kiln::test::ProbeTargets targets;
    QVERIFY2(targets.make(), "cannot write the probe's targets");

    TorchProcess process(options, environment, TorchProcess::Role::Reference, QString());
    QString error;
    QVERIFY2(process.start(QString(), 1 << 20, &error), qPrintable(error));
    if (!process.process().isolation().contains(QLatin1String("reads=1")))
        QSKIP("reads are not confined here (no Landlock)");
    const QString path =
        process.writeModule(QStringLiteral("reference.py"),
                            probeModule(targets.database(), targets.homeFile.fileName()));
    QVERIFY(!path.isEmpty());
    const SandboxProcess::Reply reply = process.request("load " + path.toUtf8() + " 1", 120000);
    const QString answer =
        QString::fromUtf8(reply.line + ' ' + process.process().stderrTail().right(2000));
    QVERIFY2(answer.contains(QLatin1String("probe ")), qPrintable(answer));
    for (const char *denied :
         {"database=errno13", "home=errno13", "homedir=errno13", "engine=errno13", "proc=errno13"})
        QVERIFY2(answer.contains(QLatin1String(denied)),
                 qPrintable(QLatin1String(denied) + QStringLiteral(": ") + answer));
    QVERIFY2(answer.contains(QLatin1String("own=read")), qPrintable(answer));
}

QTEST_GUILESS_MAIN(TestTorchConfinement)
#include "tst_torchconfinement.moc"
