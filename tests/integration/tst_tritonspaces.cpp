// The offline policy's Triton variant spaces of KernelBench problems (tasks/kernelbench/): every
// combination renders to Python that parses and that the static screen passes; the policy writes
// ModelNew candidates for these problems in Triton, refuses other problems and languages with a
// reason, and refuses a problem whose reference is not the one a space was written for. Whether
// the kernels are right is the GPU's to say (tst_torchtriton, offlineTritonVariantsPass).

#include "kernelbenchproblems.h"
#include "languages/kernellanguages.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/offline/variantspace.h"
#include "tasks/kernelbenchsource.h"
#include "tasks/task.h"
#include "verifier/screen/python/torchscreen.h"

#include <QDir>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

const QString kProblems = QStringLiteral(KILN_SOURCE_DIR "/tests/data/kernelbench/triton_spaces");

// The problems of tests/data/kernelbench/triton_spaces as the importer names them, in Triton.
QMap<QString, Task> problems()
{
    QMap<QString, Task> tasks = testing::kernelBenchProblemsIn(kProblems + u"/level1"_s, 1);
    for (Task &task : tasks)
        task.candidateLanguage = u"triton"_s;
    return tasks;
}

QString describe(const QList<CheatFlag> &flags)
{
    QStringList lines;
    for (const CheatFlag &flag : flags)
        lines << flag.id + (flag.blocking ? u" (blocking): "_s : u": "_s) + flag.message;
    return lines.join(u"\n"_s);
}

GenerationRequest sample(const Task &task, qint64 index)
{
    GenerationRequest request;
    request.task = &task;
    request.backend = Backend::Torch;
    request.operation = Operation::Sample;
    request.seed = 20261207;
    request.sampleIndex = index;
    return request;
}

} // namespace

class TstTritonSpaces : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void everyCombinationParsesAndPassesTheScreen();
    void policyWritesTritonCandidates();
    void policyRefusesWhatItCannotWrite();

private:
    QMap<QString, Task> m_tasks;
};

void TstTritonSpaces::initTestCase()
{
    m_tasks = problems();
    QCOMPARE(m_tasks.size(), 3);
    const QStringList available = VariantSpace::availableKernelBench(u"triton"_s);
    QCOMPARE(available, QStringList({u"kb1_001_square_matrix_multiplication"_s,
                                     u"kb1_088_mingptnewgelu"_s, u"kb1_095_crossentropyloss"_s}));
    QVERIFY(VariantSpace::availableKernelBench(u"cuda"_s).isEmpty());
}

// All combinations of the three spaces (a few hundred each): rendered, parsed by python3's own
// parser in one process, and screened.
void TstTritonSpaces::everyCombinationParsesAndPassesTheScreen()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const KernelLanguage *found = KernelLanguages::find(u"triton"_s);
    QVERIFY(found);
    const KernelLanguage &triton = *found;
    int written = 0;
    for (const Task &task : std::as_const(m_tasks)) {
        QString error;
        const auto space = VariantSpace::loadKernelBench(task.name, u"triton"_s, &error);
        QVERIFY2(space, qPrintable(error));
        QCOMPARE(space->backend(), Backend::Torch);
        QCOMPARE(space->language(), u"triton"_s);
        QVERIFY2(space->fitsReference(task.referenceSource.value(Backend::Torch), &error),
                 qPrintable(task.name + u": "_s + error));
        QVERIFY(space->combinationCount() >= 100);
        for (qint64 i = 0; i < space->combinationCount(); ++i) {
            const KnobConfig config = space->configAt(i);
            const TemplateEngine::Result rendered = space->render(config);
            QVERIFY2(rendered.ok, qPrintable(rendered.error));
            QVERIFY(rendered.text.contains(u"class ModelNew(nn.Module)"_s));
            QVERIFY(rendered.text.contains(u"@triton.jit"_s));
            // Not even advice: the policy's honest kernels do all the work in Triton.
            const QList<CheatFlag> flags = TorchScreen::screen(task, rendered.text, triton);
            QVERIFY2(flags.isEmpty(),
                     qPrintable(task.name + u" "_s +
                                QString::fromUtf8(QJsonDocument(VariantSpace::configToJson(config))
                                                      .toJson(QJsonDocument::Compact)) +
                                u"\n"_s + describe(flags)));
            QFile out(dir.filePath(u"%1_%2.py"_s.arg(task.name).arg(i)));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(rendered.text.toUtf8());
            ++written;
        }
    }
    QVERIFY(written >= 300);
    QProcess python;
    python.start(u"python3"_s, {u"-c"_s,
                                u"import ast, glob, sys\n"
                                "for path in sorted(glob.glob(sys.argv[1] + '/*.py')):\n"
                                "    ast.parse(open(path).read(), path)\n"
                                "print('parsed')\n"_s,
                                dir.path()});
    QVERIFY(python.waitForFinished(120000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    QCOMPARE(python.readAllStandardOutput().trimmed(), QByteArray("parsed"));
}

// Samples of each problem: Python ModelNew sources from the problem's space, recorded as such,
// with the defects the policy's rates ask for and a spread of knob settings.
void TstTritonSpaces::policyWritesTritonCandidates()
{
    OfflinePolicy policy;
    std::atomic<bool> cancel{false};
    for (const Task &task : std::as_const(m_tasks)) {
        QCOMPARE(policy.refusal(task, Backend::Torch), QString());
        QSet<QString> sources;
        QSet<QString> injected;
        for (qint64 i = 0; i < 40; ++i) {
            const GenerationResult result = policy.generate(sample(task, i), cancel);
            QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
            const CandidateRecord &c = result.candidate;
            QVERIFY(c.source.contains(u"class ModelNew"_s));
            QVERIFY(c.response.contains(u"```python"_s));
            QCOMPARE(c.policyMeta.value(u"space"_s).toString(), task.name + u"/pytorch/triton"_s);
            sources.insert(c.source);
            injected.insert(c.policyMeta.value(u"injected"_s).toString().section(u':', 0, 0));
        }
        QVERIFY2(sources.size() >= 20, qPrintable(QString::number(sources.size())));
        QVERIFY(injected.contains(u"none"_s));
        QVERIFY2(injected.size() >= 2, qPrintable(injected.values().join(u", "_s)));
    }
}

void TstTritonSpaces::policyRefusesWhatItCannotWrite()
{
    OfflinePolicy policy;
    Task matmul = m_tasks.value(u"kb1_001_square_matrix_multiplication"_s);
    // Inline CUDA: no space, and the message names the problems that have one in Triton.
    Task inCuda = matmul;
    inCuda.candidateLanguage = u"cuda"_s;
    const QString cuda = policy.refusal(inCuda, Backend::Torch);
    QVERIFY2(cuda.contains(u"no variant space of the offline policy in cuda"_s), qPrintable(cuda));
    // A problem of the same name whose reference computes something else.
    Task changed = matmul;
    changed.name = matmul.name;
    changed.referenceSource.insert(
        Backend::Torch, matmul.referenceSource.value(Backend::Torch)
                            .replace(u"torch.matmul(A, B)"_s, u"torch.matmul(A, B.T)"_s));
    const QString reference = policy.refusal(changed, Backend::Torch);
    QVERIFY2(reference.contains(u"is not the problem"_s), qPrintable(reference));
    // Another problem: refused, with the ones it can write.
    Task other = matmul;
    other.name = u"kb1_019_relu"_s;
    const QString relu = policy.refusal(other, Backend::Torch);
    QVERIFY2(
        relu.contains(u"kb1_019_relu has no variant space of the offline policy in triton"_s) &&
            relu.contains(u"kb1_095_crossentropyloss"_s),
        qPrintable(relu));
    std::atomic<bool> cancel{false};
    const GenerationResult refused = policy.generate(sample(other, 0), cancel);
    QCOMPARE(refused.error, relu);
}

QTEST_GUILESS_MAIN(TstTritonSpaces)
#include "tst_tritonspaces.moc"
