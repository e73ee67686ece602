// kiln-cuda-sandbox --private-network: the namespaces a profiler and the candidate's process it
// starts share (kiln-cli profile). Inside, loopback is up and is all there is: a listener of
// the host's loopback and any outside address are out of reach, and the process is in a user
// namespace of its own. A --profiled sandbox refuses to start anywhere else. No GPU is needed.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const char *const kProbe = R"py(
import json, socket, sys
out = {"interfaces": sorted(l.split(":")[0].strip()
                            for l in open("/proc/net/dev").read().splitlines()[2:])}
def reach(address):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(address)
        return "reached"
    except OSError as e:
        return type(e).__name__
out["host_listener"] = reach(("127.0.0.1", int(sys.argv[1])))
out["outside"] = reach(("192.0.2.1", 80))
inside = socket.socket()
inside.bind(("127.0.0.1", 0))
inside.listen(1)
out["loopback"] = reach(inside.getsockname())
out["uid_map"] = open("/proc/self/uid_map").read().split()
print(json.dumps(out))
)py";

const QString kSandbox = QStringLiteral(KILN_BINARY_DIR "/bin/kiln-cuda-sandbox");

} // namespace

class TestPrivateNetwork : public QObject
{
    Q_OBJECT

private slots:
    void onlyLoopbackIsReachable()
    {
        QTcpServer host;
        QVERIFY(host.listen(QHostAddress::LocalHost));
        QProcess probe;
        probe.start(kSandbox, {u"--private-network"_s, u"--"_s, u"/usr/bin/python3"_s, u"-c"_s,
                               QString::fromLatin1(kProbe), QString::number(host.serverPort())});
        QVERIFY(probe.waitForFinished(30000));
        const QString errors = QString::fromUtf8(probe.readAllStandardError());
        if (errors.contains(u"no network namespace"_s))
            QSKIP(qPrintable(u"this machine makes no network namespace: "_s + errors));
        QVERIFY2(probe.exitCode() == 0, qPrintable(errors));
        const QJsonObject out = QJsonDocument::fromJson(probe.readAllStandardOutput()).object();
        QCOMPARE(out.value(u"interfaces"_s).toVariant().toStringList(), QStringList{u"lo"_s});
        QCOMPARE(out.value(u"loopback"_s).toString(), u"reached"_s);
        QCOMPARE(out.value(u"host_listener"_s).toString(), u"ConnectionRefusedError"_s);
        QVERIFY2(out.value(u"outside"_s).toString() != u"reached"_s,
                 qPrintable(out.value(u"outside"_s).toString()));
        QVERIFY(!host.hasPendingConnections());
        // A user namespace of its own, even for root: one id mapped, not the host's 2^32.
        const QStringList map = out.value(u"uid_map"_s).toVariant().toStringList();
        QCOMPARE(map.size(), 3);
        QCOMPARE(map[2], u"1"_s);
    }

    // A profiled sandbox (sockets allowed) refuses to start outside that namespace, and with
    // the unconfined benchmark mode.
    void profiledRefusesTheHostNetwork()
    {
        QTemporaryDir work;
        for (const QStringList &extra :
             {QStringList{u"--profiled"_s}, QStringList{u"--profiled"_s, u"--profiling"_s}}) {
            QProcess sandbox;
            sandbox.start(kSandbox, QStringList{u"--workdir"_s, work.path()} + extra);
            QVERIFY(sandbox.waitForFinished(30000));
            QCOMPARE(sandbox.exitCode(), 90);
            const QByteArray errors = sandbox.readAllStandardError();
            QVERIFY2(errors.contains("private user and network namespace"), errors.constData());
        }
    }

    void withoutAProgramItSaysHow()
    {
        QProcess wrapper;
        wrapper.start(kSandbox, {u"--private-network"_s});
        QVERIFY(wrapper.waitForFinished(10000));
        QCOMPARE(wrapper.exitCode(), 90);
        QVERIFY(wrapper.readAllStandardError().contains("--private-network -- PROGRAM"));
    }
};

QTEST_GUILESS_MAIN(TestPrivateNetwork)
#include "tst_privatenetwork.moc"
