// KernelBench problems without torch or a GPU (what CI can run): the importer through the real
// kiln-cli (malformed files reported and skipped, Python syntax checked by python3), the task
// format, the backend rules, and the PyTorch sandbox's start through kiln-torch-sandbox, which
// must say clearly that torch is missing. tst_torchbackend runs the rest on a GPU.
#include "kilncli.h"
#include "tasks/kernelbenchsource.h"
#include "tasks/taskloader.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchprocess.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::test;
using namespace Qt::StringLiterals;

namespace {

const QString kData = QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench");

void writeFile(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

QJsonObject taskSummary(const QJsonObject &list, const QString &name)
{
    for (const QJsonValue &t : list.value(u"tasks"_s).toArray())
        if (t.toObject().value(u"name"_s).toString() == name)
            return t.toObject();
    return {};
}

} // namespace

class TestKernelBench : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tasks;

private slots:
    void initTestCase() { QVERIFY(m_tasks.isValid()); }

    void namesAndDefects()
    {
        QCOMPARE(KernelBenchSource::taskName(1, 19, u"ReLU"_s), u"kb1_019_relu"_s);
        QCOMPARE(KernelBenchSource::taskName(2, 7, u"Conv3d GroupNorm Min"_s),
                 u"kb2_007_conv3d_groupnorm_min"_s);
        int number = 0;
        QString title;
        QVERIFY(KernelBenchSource::parseFileName(u"19_ReLU.py"_s, &number, &title));
        QCOMPARE(number, 19);
        QVERIFY(!KernelBenchSource::parseFileName(u"ReLU.py"_s, &number, &title));
        // Definitions inside a docstring or a comment do not count.
        const QString fake =
            u"import torch\n\"\"\"\nclass Model(nn.Module):\n    def forward(self, x):\n"
            "\"\"\"\n# def get_inputs():\ndef get_init_inputs():\n    return []\n"_s;
        const QStringList defects = KernelBenchSource::problemDefects(fake);
        QVERIFY(defects.join(u' ').contains(u"class Model"_s));
        QVERIFY(defects.join(u' ').contains(u"get_inputs"_s));
        QVERIFY(KernelBenchSource::candidateDefects(u"class Model(nn.Module):\n    pass\n"_s)
                    .join(u' ')
                    .contains(u"ModelNew"_s));
    }

    void importReportsAndSkipsMalformedFiles()
    {
        const CliOutcome o =
            runCli({u"import-kernelbench"_s, kData, u"--out"_s, m_tasks.path(), u"--json"_s});
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonObject report = o.json();
        QStringList imported;
        for (const QJsonValue &v : report.value(u"imported"_s).toArray())
            imported << v.toObject().value(u"task"_s).toString();
        QCOMPARE(imported, (QStringList{u"kb1_001_scaled_residual_add"_s, u"kb1_002_row_softmax"_s,
                                        u"kb1_003_small_matmul"_s, u"kb2_001_matmul_bias_relu"_s}));
        QHash<QString, QString> skipped;
        for (const QJsonValue &v : report.value(u"skipped"_s).toArray())
            skipped.insert(v.toObject().value(u"file"_s).toString(),
                           v.toObject().value(u"reason"_s).toString());
        QCOMPARE(skipped.size(), 2);
        QVERIFY(skipped.value(u"level1/4_Missing_get_inputs.py"_s).contains(u"get_inputs"_s));
        QVERIFY(skipped.value(u"level1/5_Not_a_problem.py"_s).contains(u"class Model"_s));
        // The reference is the problem's own source, byte for byte.
        QFile original(kData + u"/KernelBench/level1/2_Row_softmax.py"_s);
        QFile kept(m_tasks.path() + u"/kb1_002_row_softmax/reference.py"_s);
        QVERIFY(original.open(QIODevice::ReadOnly) && kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), original.readAll());
        // Text mode names the skipped files on stderr and still succeeds.
        const CliOutcome text = runCli(
            {u"import-kernelbench"_s, kData, u"--out"_s, m_tasks.path(), u"--levels"_s, u"1"_s});
        QCOMPARE(text.status, 0);
        QVERIFY(text.err.contains("skipped level1/4_Missing_get_inputs.py"));
        QVERIFY(!text.out.contains("kb2_001"));
    }

    void pythonSyntaxErrorsAreSkipped()
    {
        QTemporaryDir checkout;
        QFile good(kData + u"/KernelBench/level1/1_Scaled_residual_add.py"_s);
        QVERIFY(good.open(QIODevice::ReadOnly));
        const QByteArray source = good.readAll();
        writeFile(checkout.path() + u"/KernelBench/level1/1_Good.py"_s, source);
        // Every required name is there; only Python can tell the file is broken.
        writeFile(checkout.path() + u"/KernelBench/level1/2_Broken.py"_s,
                  QByteArray(source).replace("return", "return (("));
        QTemporaryDir out;
        const CliOutcome o =
            runCli({u"import-kernelbench"_s, checkout.path(), u"--out"_s, out.path(), u"--json"_s});
        QCOMPARE(o.status, 0);
        const QJsonArray skipped = o.json().value(u"skipped"_s).toArray();
        QCOMPARE(skipped.size(), 1);
        QVERIFY2(skipped[0].toObject().value(u"reason"_s).toString().contains(u"parse"_s),
                 o.out.constData());
        QCOMPARE(o.json().value(u"imported"_s).toArray().size(), 1);
        // No level folders at all: a usage error that says so.
        const CliOutcome none = runCli({u"import-kernelbench"_s, out.path() + u"/nothing"_s});
        QCOMPARE(none.status, 2);
        QVERIFY(none.err.contains("no level folders"));
    }

    void tasksOfThePytorchBackend()
    {
        // A broken KernelBench task.json is reported and the others still load.
        writeFile(m_tasks.path() + u"/kb1_999_broken/task.json"_s,
                  R"({"schema": 1, "format": "kernelbench", "name": "kb1_999_broken",
                      "title": "x", "kernelbench": {"level": 0, "problem": 1},
                      "reference": {"pytorch": "missing.py"}})");
        const CliOutcome o = runCli({u"tasks"_s, u"--tasks-dir"_s, m_tasks.path(), u"--json"_s});
        QCOMPARE(o.status, 0);
        const QJsonObject softmax = taskSummary(o.json(), u"kb1_002_row_softmax"_s);
        QCOMPARE(softmax.value(u"backends"_s).toArray(), QJsonArray{u"pytorch"_s});
        QCOMPARE(softmax.value(u"kernelbench_level"_s).toInt(), 1);
        QCOMPARE(taskSummary(o.json(), u"kb2_001_matmul_bias_relu"_s)
                     .value(u"kernelbench_level"_s)
                     .toInt(),
                 2);
        QVERIFY(taskSummary(o.json(), u"kb1_999_broken"_s).isEmpty());
        QVERIFY(o.err.contains("kernelbench.level"));
        QVERIFY(o.err.contains("reference.pytorch"));
        QDir(m_tasks.path() + u"/kb1_999_broken"_s).removeRecursively();
    }

    void backendRules()
    {
        const QString candidate =
            kData + u"/candidates/"_s +
            QDir(kData + u"/candidates"_s).entryList({u"*.py"_s}, QDir::Files, QDir::Name).value(0);
        const CliOutcome cuda =
            runCli({u"eval"_s, u"--tasks-dir"_s, m_tasks.path(), u"--task"_s,
                    u"kb1_002_row_softmax"_s, u"--backend"_s, u"cuda"_s, candidate});
        QCOMPARE(cuda.status, 2);
        QVERIFY2(cuda.err.contains("pytorch backend"), cuda.err.constData());
        const CliOutcome pytorch = runCli(
            {u"eval"_s, u"--task"_s, u"vector_add"_s, u"--backend"_s, u"pytorch"_s, candidate});
        QCOMPARE(pytorch.status, 2);
        QVERIFY2(pytorch.err.contains("KernelBench problems only"), pytorch.err.constData());
        const CliOutcome mixed =
            runCli({u"run"_s, u"--tasks-dir"_s, m_tasks.path(), u"--suite"_s,
                    u"kb1_002_row_softmax,softmax"_s, u"--db"_s, m_tasks.path() + u"/mixed.db"_s});
        QCOMPARE(mixed.status, 2);
        QVERIFY2(mixed.err.contains("cannot mix"), mixed.err.constData());
    }

    // The real launcher and worker: isolation first, then python3, which must say what is
    // missing instead of hanging or answering garbage.
    void sandboxSaysTorchIsMissing()
    {
        // A real interpreter without torch: a virtual environment that does not see the
        // system's packages.
        QTemporaryDir venv;
        QProcess make;
        make.start(u"/usr/bin/python3"_s, {u"-m"_s, u"venv"_s, u"--without-pip"_s, venv.path()});
        if (!make.waitForFinished(60000) || make.exitCode() != 0)
            QSKIP("python3 -m venv is not available here");
        VerifierOptions options = VerifierOptions::defaults();
        options.python = venv.path() + u"/bin/python3"_s;
        TorchEnvironment environment = TorchEnvironment::probe(options);
        QVERIFY(!environment.usable);
        QVERIFY2(environment.reason.contains(u"torch cannot be imported"_s),
                 qPrintable(environment.reason));
        // The sandbox itself, started anyway, says the same on its protocol channel.
        environment.architecture = u"9.0"_s;
        TorchProcess process(options, environment, TorchProcess::Role::Reference, QString());
        QString error;
        QVERIFY(!process.start(QString(), 1 << 20, &error));
        QVERIFY2(error.contains(u"torch unavailable"_s), qPrintable(error));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"KILN_PYTHON"_s, options.python);
        const QString candidate =
            QDir(kData + u"/candidates"_s).entryList({u"*.py"_s}, QDir::Files, QDir::Name).value(0);
        const CliOutcome eval =
            runCli({u"eval"_s, u"--tasks-dir"_s, m_tasks.path(), u"--task"_s,
                    u"kb1_002_row_softmax"_s, u"--json"_s, kData + u"/candidates/"_s + candidate},
                   240000, env);
        QCOMPARE(eval.status, 0);
        QVERIFY2(eval.json().value(u"summary"_s).toString().contains(u"torch cannot be imported"_s),
                 eval.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestKernelBench)
#include "tst_kernelbench.moc"
