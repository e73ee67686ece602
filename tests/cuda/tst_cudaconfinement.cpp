// What candidate code reaches from inside kiln-cuda-sandbox on a GPU: the confinement probe
// (confinementprobe.h), built on the host as the shim a candidate's object would be, loaded and
// called through the real protocol once the sandbox is confined. Skipped without a GPU.
#include "confinementprobe.h"
#include "verifier/harness/sandboxprocess.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>

class TestCudaConfinement : public QObject
{
    Q_OBJECT

private slots:
    void candidateCodeReachesNothingOutside();
};

void TestCudaConfinement::candidateCodeReachesNothingOutside()
{
    kiln::test::ProbeTargets targets;
    QTemporaryDir work;
    QVERIFY2(targets.make() && work.isValid(), "cannot write the probe's targets");

    QFile source(work.filePath(QStringLiteral("probe.cpp")));
    QVERIFY(source.open(QIODevice::WriteOnly));
    source.write(kiln::test::confinementProbeSource(targets.database(), targets.homeFile.fileName(),
                                                    QDir::homePath(), true));
    source.close();
    QProcess compiler;
    compiler.setWorkingDirectory(work.path());
    compiler.start(QStringLiteral("g++"),
                   {QStringLiteral("-std=c++17"), QStringLiteral("-O1"), QStringLiteral("-shared"),
                    QStringLiteral("-fPIC"), QStringLiteral("probe.cpp"), QStringLiteral("-o"),
                    QStringLiteral("probe.so")});
    QVERIFY(compiler.waitForFinished(120000));
    QVERIFY2(compiler.exitCode() == 0, compiler.readAllStandardError().constData());

    kiln::SandboxSettings settings;
    settings.executable = QStringLiteral(KILN_BINARY_DIR "/bin/kiln-cuda-sandbox");
    settings.addressSpaceMb = 0;
    settings.extraArguments = {QStringLiteral("--device"), QStringLiteral("0")};
    if (!QFile::exists(settings.executable))
        QSKIP("built without CUDA");
    kiln::SandboxProcess sandbox(settings);
    QString error;
    if (!sandbox.start(work.path(), 1 << 20, 60000, &error))
        QSKIP(qPrintable(QStringLiteral("no usable GPU: ") + error));
    if (!sandbox.isolation().contains(QLatin1String("reads=1")))
        QSKIP("reads are not confined here (no Landlock)");
    using Status = kiln::SandboxProcess::Status;
    const QByteArray library = work.filePath(QStringLiteral("probe.so")).toUtf8();
    kiln::SandboxProcess::Reply reply = sandbox.request("load c probe " + library, 20000);
    QVERIFY2(reply.status == Status::Ok, reply.line.constData());
    QCOMPARE(sandbox.request("args 0 0 0 0", 20000).status, Status::Ok);
    reply = sandbox.request("batch call:c:0", 60000);
    QVERIFY2(reply.status == Status::Ok, reply.line.constData());

    QFile answers(work.filePath(QStringLiteral("probe.out")));
    QVERIFY2(answers.open(QIODevice::ReadOnly), "the probe wrote no answers");
    int out[10] = {};
    const QList<QByteArray> lines = answers.readAll().split('\n');
    for (int i = 0; i < 10; ++i)
        out[i] = lines.value(i).toInt();
    kiln::test::verifyConfinement(out, false);
}

QTEST_GUILESS_MAIN(TestCudaConfinement)
#include "tst_cudaconfinement.moc"
