// The cut of a load_inline CUDA source into a device part (nvcc, no torch) and a host part
// (g++, Kiln's precompiled headers) by src/sandbox/kiln_inline_split.py, over the sources in
// tests/data/inline_split: each says in its first line whether it is cut or refused. The parts
// of a cut source are golden files; every device part compiles with nvcc. The host parts need
// torch's CUDA headers and are compiled on the GPU machine (tst_torchbackend).
#include "../golden/goldenfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestInlineSplit : public QObject
{
    Q_OBJECT

private:
    QString m_python;
    QString m_nvcc;
    QString m_torchInclude; // torch's headers, where a python3 with torch says where they are

    static QString casesDir() { return QStringLiteral(KILN_SOURCE_DIR "/tests/data/inline_split"); }

    // {"device", "host", "kernels"} or {"refused"} for one source.
    QJsonObject splitOf(const QString &path) const
    {
        static const char *script = R"(
import json, sys
sys.path.insert(0, sys.argv[1])
from kiln_inline_split import SplitRefused, split
try:
    device, host, kernels = split(open(sys.argv[2]).read())
    print(json.dumps({"device": device, "host": host, "kernels": kernels}))
except SplitRefused as refused:
    print(json.dumps({"refused": str(refused)}))
)";
        QProcess python;
        python.start(m_python, {u"-c"_s, QString::fromUtf8(script),
                                QStringLiteral(KILN_SOURCE_DIR "/src/sandbox"), path});
        if (!python.waitForFinished(30000) || python.exitCode() != 0)
            return {{u"error"_s, QString::fromUtf8(python.readAllStandardError())}};
        return QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    }

    static QString expectation(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        const QString first = QString::fromUtf8(file.readLine()).trimmed();
        return first.section(u"expect:"_s, 1).trimmed();
    }

private slots:
    void initTestCase()
    {
        m_python = QStandardPaths::findExecutable(u"python3"_s);
        if (m_python.isEmpty())
            QSKIP("no python3");
        m_nvcc = QFileInfo::exists(u"/usr/local/cuda/bin/nvcc"_s)
                     ? u"/usr/local/cuda/bin/nvcc"_s
                     : QStandardPaths::findExecutable(u"nvcc"_s);
        for (const QString &python :
             {qEnvironmentVariable("KILN_PYTHON"), u"/usr/bin/python3"_s, m_python}) {
            if (python.isEmpty())
                continue;
            QProcess probe;
            probe.start(python, {u"-c"_s, u"import torch.utils.cpp_extension as c; "
                                          "print(c.include_paths()[0])"_s});
            if (probe.waitForFinished(60000) && probe.exitCode() == 0) {
                m_torchInclude = QString::fromUtf8(probe.readAllStandardOutput()).trimmed();
                break;
            }
        }
    }

    void cases_data()
    {
        QTest::addColumn<QString>("path");
        const QStringList files = QDir(casesDir()).entryList({u"*.cu"_s}, QDir::Files);
        QVERIFY(files.size() >= 4);
        for (const QString &file : files)
            QTest::newRow(qPrintable(file)) << casesDir() + u'/' + file;
    }

    void cases()
    {
        QFETCH(QString, path);
        const QString expected = expectation(path);
        const QJsonObject split = splitOf(path);
        QVERIFY2(!split.contains(u"error"_s), qPrintable(split.value(u"error"_s).toString()));
        const QString name = QFileInfo(path).completeBaseName();
        if (expected.startsWith(u"refused"_s)) {
            QVERIFY2(split.contains(u"refused"_s), qPrintable(name + u" was cut"_s));
            const QString reason = split.value(u"refused"_s).toString();
            QVERIFY2(reason.contains(expected.section(u' ', 1)), qPrintable(reason));
            return;
        }
        QCOMPARE(expected, u"split"_s);
        QVERIFY2(!split.contains(u"refused"_s), qPrintable(split.value(u"refused"_s).toString()));
        for (const QString &part : {u"device"_s, u"host"_s}) {
            const kiln::test::GoldenFile golden(u"inline_split/%1.%2.%3"_s.arg(
                name, part, part == u"device"_s ? u"cu"_s : u"cpp"_s));
            const QString problem = golden.check(split.value(part).toString().toUtf8());
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
    }

    // Each device part is a source nvcc compiles on its own, with load_inline's CUDA flags.
    void devicePartsCompile_data() { cases_data(); }

    void devicePartsCompile()
    {
        QFETCH(QString, path);
        if (m_nvcc.isEmpty())
            QSKIP("no nvcc");
        const QJsonObject split = splitOf(path);
        if (!split.contains(u"device"_s))
            QSKIP("refused: nothing to compile");
        const QString device = split.value(u"device"_s).toString();
        if (device.contains(u"c10/"_s) && m_torchInclude.isEmpty())
            QSKIP("this device part includes torch's scalar types and no python3 here has torch");
        QTemporaryDir dir;
        QFile file(dir.filePath(u"device.cu"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(device.toUtf8());
        file.close();
        QStringList arguments{u"-c"_s,
                              file.fileName(),
                              u"-o"_s,
                              dir.filePath(u"device.o"_s),
                              u"-std=c++17"_s,
                              u"--expt-relaxed-constexpr"_s,
                              u"-D__CUDA_NO_HALF_OPERATORS__"_s,
                              u"-D__CUDA_NO_HALF_CONVERSIONS__"_s,
                              u"-D__CUDA_NO_BFLOAT16_CONVERSIONS__"_s,
                              u"-D__CUDA_NO_HALF2_OPERATORS__"_s,
                              u"--compiler-options"_s,
                              u"-fPIC"_s,
                              u"-gencode=arch=compute_90,code=sm_90"_s};
        if (!m_torchInclude.isEmpty())
            arguments << u"-isystem"_s << m_torchInclude;
        QProcess nvcc;
        nvcc.setProcessChannelMode(QProcess::MergedChannels);
        nvcc.start(m_nvcc, arguments);
        QVERIFY(nvcc.waitForFinished(180000));
        QVERIFY2(nvcc.exitCode() == 0, qPrintable(QString::fromUtf8(nvcc.readAll())));
    }
};

QTEST_GUILESS_MAIN(TestInlineSplit)
#include "tst_inlinesplit.moc"
