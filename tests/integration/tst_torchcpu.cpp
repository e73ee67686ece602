// The pytorch backend's whole pipeline on torch's CPU device (VerifierOptions::torchDevice
// "cpu"), which CI can run with Debian's python3-torch: kiln-torch-sandbox, the worker's
// protocol, a real load_inline build and its cache, the engine's comparisons over several
// seeds, the second call at the same addresses, input changes and the timing rounds. Every
// candidate under tests/data/kernelbench/cpu carries its expected verdict in its first line.
// Without a python3 that has torch the suite is skipped; tst_torchbackend covers the GPU.
#include "candidateexpectation.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "torchpython.h"
#include "verifier/verifier.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::testing;
using namespace Qt::StringLiterals;

namespace {

// The KernelBench test problems with the scaled add at 1024 x 1021 instead of 4096 x 4093: on
// torch's CPU device with CI's two cores one reference call at the GPU size takes about 0.4 s,
// and the suite's evaluations time it hundreds of times. The odd width stays odd.
bool copySmallerProblems(const QString &from, const QString &to)
{
    const QDir source(from);
    for (const QString &level : source.entryList({u"level*"_s}, QDir::Dirs)) {
        if (!QDir().mkpath(to + u'/' + level))
            return false;
        const QDir folder(source.filePath(level));
        for (const QString &name : folder.entryList({u"*.py"_s}, QDir::Files)) {
            QString text = readFile(folder.filePath(name));
            if (name == u"1_Scaled_residual_add.py"_s) {
                if (!text.contains(u"rows = 4096\ncols = 4093"_s))
                    return false;
                text.replace(u"rows = 4096\ncols = 4093"_s, u"rows = 1024\ncols = 1021"_s);
            }
            QFile file(to + u'/' + level + u'/' + name);
            if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0)
                return false;
        }
    }
    return true;
}

} // namespace

class TestTorchCpu : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tasksDir;
    QTemporaryDir m_cache;
    TaskLibrary m_tasks;
    std::unique_ptr<Verifier> m_verifier;
    QString m_python;                           // with torch
    QHash<QString, EvaluationResult> m_results; // by file name, from verdicts()
    static constexpr quint64 kSecret = 20261202;

    EvaluationResult evaluate(const QString &path, quint64 secret = kSecret)
    {
        const Task *task = m_tasks.task(readExpectation(path).task);
        Q_ASSERT(task);
        return m_verifier->evaluate(*task, Backend::Torch, readFile(path), secret);
    }

private slots:
    void initTestCase()
    {
        VerifierOptions options = VerifierOptions::defaults();
        options.python = kiln::test::pythonWithTorch(options.python);
        if (options.python.isEmpty())
            QSKIP("no python3 with torch here");
        m_python = options.python;
        options.torchDevice = u"cpu"_s;
        options.cacheDirectory = m_cache.path() + u"/compile"_s;
        options.torchExtensionCache = m_cache.path() + u"/torch-extensions"_s;
        options.torchTimingBudgetMs = 500.0;
        const QString problems = m_cache.path() + u"/problems/KernelBench"_s;
        QVERIFY(copySmallerProblems(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/KernelBench"), problems));
        const KernelBenchImporter::Report report =
            KernelBenchImporter::run(m_cache.path() + u"/problems"_s, m_tasksDir.path(), {},
                                     {KernelBenchTaskLoader::kDefaultTolerance,
                                      KernelBenchTaskLoader::kDefaultTolerance, 0.0},
                                     {});
        QCOMPARE(report.imported.size(), 4);
        // A loss, whose answer a constant nearly matches: the CPU suite's own problem.
        const KernelBenchImporter::Report loss = KernelBenchImporter::run(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/cpu/problems"),
            m_tasksDir.path(), {},
            {KernelBenchTaskLoader::kDefaultTolerance, KernelBenchTaskLoader::kDefaultTolerance,
             0.0},
            {});
        QCOMPARE(loss.imported.size(), 1);
        QCOMPARE(m_tasks.loadDirectory(m_tasksDir.path()), 5);
        m_verifier = std::make_unique<Verifier>(options);
        QVERIFY2(m_verifier->torchEnvironment().usable,
                 qPrintable(m_verifier->torchEnvironment().reason));
        qInfo("%s", qPrintable(m_verifier->torchEnvironment().describe()));
    }

    void verdicts_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/cpu"));
        for (const QString &name : dir.entryList({u"*.py"_s}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << dir.filePath(name);
    }

    void verdicts()
    {
        QFETCH(QString, path);
        QFile::remove(u"/tmp/kiln-torch-escape-proof"_s);
        QFile::remove(u"/tmp/kiln-torch-escape-proof-2"_s);
        const EvaluationResult result = evaluate(path);
        m_results.insert(QFileInfo(path).fileName(), result);
        // Writes outside the work folder and new processes are refused by the sandbox itself.
        QVERIFY(!QFile::exists(u"/tmp/kiln-torch-escape-proof"_s));
        QVERIFY(!QFile::exists(u"/tmp/kiln-torch-escape-proof-2"_s));
        const QString mismatch = expectationMismatch(readExpectation(path), result);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch + u": "_s + describeResult(path, result)));
        QCOMPARE(result.backend, Backend::Torch);
        const StageResult *correctness = result.stage(u"correctness"_s);
        QVERIFY(correctness);
        if (path.contains(u"escape"_s)) {
            QVERIFY2(result.summary.contains(u"PermissionError"_s), qPrintable(result.summary));
            return;
        }
        // A mistake is wrong whatever else is flagged; the others compute the right answer.
        if (path.contains(u"constant"_s)) {
            // Every seed's set passes; the spread set, the last, does not.
            const QJsonArray seeds = correctness->data.value(u"seeds"_s).toArray();
            QVERIFY(seeds.size() >= 3);
            for (qsizetype i = 0; i + 1 < seeds.size(); ++i)
                QCOMPARE(seeds[i].toObject().value(u"mismatches"_s).toInt(), 0);
            QVERIFY(seeds.last().toObject().value(u"spread"_s).toBool());
            QVERIFY(seeds.last().toObject().value(u"mismatches"_s).toInt() > 0);
        }
        QCOMPARE(correctness->ok, !path.contains(u"wrong"_s) && !path.contains(u"cache"_s) &&
                                      !path.contains(u"mutates"_s));
        // A NaN is named as such, not hidden behind "max abs error 0".
        if (path.contains(u"nan"_s))
            QVERIFY2(correctness->detail.contains(u"1 NaN or infinite"_s),
                     qPrintable(correctness->detail));
    }

    // The audit on torch's CPU device: no kernel trace, but the op record and the replay.
    // The honest extension computes in fp32 and its outputs depend on it; the bfloat16 answer
    // shows its ops; the ghost's outputs come out the same without its extension.
    void auditOnTheCpuDevice()
    {
        const auto part = [this](const char *file, const char *name) {
            const StageResult *stage = m_results.value(QString::fromUtf8(file)).stage(u"audit"_s);
            return stage ? stage->data.value(QString::fromUtf8(name)).toObject() : QJsonObject{};
        };
        const auto text = [](const QJsonObject &object) {
            return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
        };
        const QJsonObject honest = part("cpp_scaled_add.py", "replay");
        QVERIFY2(honest.value(u"calls"_s).toInt() >= 1 && honest.value(u"depends"_s) == true,
                 qPrintable(text(honest)));
        QVERIFY2(part("cpp_scaled_add.py", "coverage").contains(u"skipped"_s),
                 qPrintable(text(part("cpp_scaled_add.py", "coverage"))));
        const QJsonObject fp32 = part("cpp_scaled_add.py", "precision");
        QVERIFY2(fp32.value(u"evidence"_s).toArray().isEmpty(), qPrintable(text(fp32)));
        const QJsonObject bf16 = part("torch_bfloat16_residual.py", "precision");
        if (bf16.contains(u"candidate_unavailable"_s)) {
            // A torch without dispatch modes records no ops; the screen still flags it.
            qWarning("no op record on this torch: %s", qPrintable(text(bf16)));
        } else {
            QVERIFY2(fp32.value(u"candidate_dtypes"_s).toArray().contains(u"float32"_s),
                     qPrintable(text(fp32)));
            QVERIFY2(
                QJsonDocument(bf16.value(u"evidence"_s).toArray()).toJson().contains("bfloat16"),
                qPrintable(text(bf16)));
        }
        const QJsonObject ghost = part("cpp_ghost_scaled_add.py", "replay");
        QVERIFY2(ghost.value(u"calls"_s).toInt() >= 1 && ghost.value(u"depends"_s) == false,
                 qPrintable(text(ghost)));
        // The reference's op record is asked once per reference process: the ghost's audit
        // asked for it, the honest add's (the next evaluation of the problem) reused it.
        const auto steps = [this](const char *file) {
            const StageResult *stage = m_results.value(QString::fromUtf8(file)).stage(u"audit"_s);
            return stage ? stage->data.value(u"steps_ms"_s).toObject() : QJsonObject{};
        };
        QVERIFY2(steps("cpp_ghost_scaled_add.py").contains(u"reference dtypes"_s),
                 qPrintable(text(steps("cpp_ghost_scaled_add.py"))));
        QVERIFY2(!steps("cpp_scaled_add.py").contains(u"reference dtypes"_s) &&
                     steps("cpp_scaled_add.py").contains(u"candidate dtypes"_s),
                 qPrintable(text(steps("cpp_scaled_add.py"))));
    }

    // The honest C++ extension: timed against eager PyTorch, isolated, and built only once.
    void honestExtensionIsTimedAndCached()
    {
        const QString path =
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/cpu/") + u"cpp_scaled_add.py"_s;
        const EvaluationResult result = evaluate(path, kSecret + 1);
        QCOMPARE(verdictName(result.verdict), u"pass"_s);
        QVERIFY(result.speedup && *result.speedup > 0.0);
        QVERIFY(result.baselineTiming.n >= 10 && result.candidateTiming.n >= 10);
        const StageResult *compile = result.stage(u"compile"_s);
        QVERIFY(compile && compile->data.value(u"cached"_s).toBool());
        // The problem's set of inputs and outputs was measured by the evaluation before, with
        // the same reference process, and on torch's CPU device nothing is planned against a
        // GPU's memory.
        const EvaluationResult third = evaluate(path, kSecret + 4);
        const QJsonObject memory =
            third.stage(u"correctness"_s)->data.value(u"memory"_s).toObject();
        QVERIFY2(memory.value(u"set_bytes"_s).toInteger() >= 3 * 4,
                 qPrintable(QString::fromUtf8(QJsonDocument(memory).toJson())));
        QCOMPARE(memory.value(u"device_alone"_s).toBool(), false);
        // Its process was started ahead, before its source was known, and was given the
        // extension folder only when it opened the device: the cached build loaded from there.
        QCOMPARE(verdictName(third.verdict), u"pass"_s);
        const QJsonObject started =
            third.stage(u"correctness"_s)->data.value(u"candidate_process"_s).toObject();
        QVERIFY2(started.value(u"started_ahead"_s).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(started).toJson())));
        const QJsonArray thirdLoaded =
            third.stage(u"correctness"_s)->data.value(u"extensions_loaded"_s).toArray();
        QCOMPARE(thirdLoaded.size(), 1);
        QCOMPARE(thirdLoaded.first().toObject().value(u"way"_s).toString(), u"kiln"_s);
        // Its first build (in verdicts()) was Kiln's split build, not load_inline's.
        const StageResult *first = m_results.value(u"cpp_scaled_add.py"_s).stage(u"compile"_s);
        QVERIFY(first);
        const QJsonArray builds = first->data.value(u"builds"_s).toArray();
        QCOMPARE(builds.size(), 1);
        QCOMPARE(builds.first().toObject().value(u"way"_s).toString(), u"kiln"_s);
        // ... by the build process started during the build before it (the ghost's), which
        // was given this source's extension folder only then.
        QVERIFY(first->data.value(u"started_ahead"_s).toBool());
        // ... and the candidate's process loaded that build, not one of load_inline's.
        const QJsonArray loaded = m_results.value(u"cpp_scaled_add.py"_s)
                                      .stage(u"correctness"_s)
                                      ->data.value(u"extensions_loaded"_s)
                                      .toArray();
        QCOMPARE(loaded.size(), 1);
        QCOMPARE(loaded.first().toObject().value(u"way"_s).toString(), u"kiln"_s);
        const StageResult *verdict = result.stage(u"verdict"_s);
        QVERIFY(verdict);
        qInfo("second evaluation: build %.0f ms (cached), speedup %.2f", compile->ms,
              *result.speedup);
    }

    // The same C++ extension built by load_inline and by Kiln's build, each cold in a process
    // of its own, gives the same outputs bit for bit (tests/cuda/inline_builds.py).
    void bothBuildsGiveEqualOutputs()
    {
        const QJsonObject report = kiln::test::inlineBuildsReport(
            m_python,
            {u"--worker-dir"_s, QStringLiteral(KILN_SOURCE_DIR "/src/sandbox"), u"--tasks-dir"_s,
             m_tasksDir.path(), u"--device"_s, u"cpu"_s,
             QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/cpu/cpp_scaled_add.py")});
        const QJsonArray rows = report.value(u"candidates"_s).toArray();
        QCOMPARE(rows.size(), 1);
        const QJsonObject row = rows.first().toObject();
        QVERIFY2(row.value(u"equal"_s).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(row).toJson(QJsonDocument::Compact))));
        const QJsonObject kiln = row.value(u"kiln"_s).toObject();
        QCOMPARE(kiln.value(u"builds"_s).toArray().first().toObject().value(u"way"_s).toString(),
                 u"kiln"_s);
        qInfo("load_inline %.1f s, Kiln %.1f s (its headers made once in %.1f s)",
              row.value(u"torch"_s).toObject().value(u"seconds"_s).toDouble(),
              kiln.value(u"seconds"_s).toDouble(),
              report.value(u"headers"_s).toObject().value(u"seconds"_s).toDouble());
    }

    // A candidate process is started ahead, during the evaluation before: from the second
    // evaluation in a row of a language on, one is waiting (another language's is not used),
    // and each has a compile cache of its own.
    void jitProcessIsStartedAhead()
    {
        Task task = *m_tasks.task(u"kb1_002_row_softmax"_s);
        task.candidateLanguage = u"triton"_s;
        const QString source = u"import torch\nimport torch.nn as nn\n\n\n"
                               u"class ModelNew(nn.Module):\n"
                               u"    def forward(self, x):\n"
                               u"        return torch.softmax(x, dim=1)\n"_s;
        QStringList folders;
        for (int i = 0; i < 3; ++i) {
            const EvaluationResult result =
                m_verifier->evaluate(task, Backend::Torch, source, kSecret + 10 + i);
            const StageResult *correctness = result.stage(u"correctness"_s);
            QVERIFY2(correctness && correctness->ok, qPrintable(result.summary));
            const QJsonObject process = correctness->data.value(u"candidate_process"_s).toObject();
            // The first may find one too, where a test before ran a Triton evaluation.
            if (i > 0)
                QVERIFY(process.value(u"started_ahead"_s).toBool());
            const StageResult *compile = result.stage(u"compile"_s);
            QVERIFY(compile);
            // Each process compiled into a cache of its own, empty before its first call.
            QCOMPARE(compile->data.value(u"cache_files_before"_s).toInt(), 0);
            folders << compile->data.value(u"cache"_s).toString();
        }
        QCOMPARE(QSet<QString>(folders.begin(), folders.end()).size(), 3);
    }

    // The problem's own reference failing (here it raises an out-of-memory error in its forward,
    // as KernelBench's largest problems do on a busy GPU) is the verifier's error: an honest
    // candidate is neither a crash nor wrong, and the summary says whose failure it was.
    void referenceFailureIsTheVerifiers()
    {
        Task broken = *m_tasks.task(u"kb1_001_scaled_residual_add"_s);
        QString &reference = broken.referenceSource[Backend::Torch];
        QVERIFY(reference.contains(u"return a + 0.5 * b"_s));
        reference.replace(u"return a + 0.5 * b"_s,
                          u"raise RuntimeError('out of memory (a test reference)')"_s);
        const QString path =
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/cpu/") + u"cpp_scaled_add.py"_s;
        const EvaluationResult result =
            m_verifier->evaluate(broken, Backend::Torch, readFile(path), kSecret + 2);
        QCOMPARE(verdictName(result.verdict), u"verifier_error"_s);
        QVERIFY2(result.summary.contains(u"not the candidate"_s), qPrintable(result.summary));
        QVERIFY2(result.summary.contains(u"out of memory"_s), qPrintable(result.summary));
        QVERIFY(!result.speedup);
        // The healthy problem is judged as before: the failed reference was the broken one's.
        const EvaluationResult healthy = evaluate(path, kSecret + 3);
        QCOMPARE(verdictName(healthy.verdict), u"pass"_s);
    }
};

QTEST_GUILESS_MAIN(TestTorchCpu)
#include "tst_torchcpu.moc"
