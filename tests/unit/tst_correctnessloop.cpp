// The correctness loop over the visible and the hidden set, without a sandbox: a session that
// runs a vector_add kernel in this process. A kernel correct only at the declared sizes is wrong
// on the hidden set, and the result says so ("failed_on", the failure's "set") while its flags
// carry no hidden shape; an honest kernel passes both sets; a bug on the visible set is
// reported there.
#include "core/evaluationresult.h"
#include "tasks/taskloader.h"
#include "verifier/harness/correctnessloop.h"
#include "verifier/harness/correctnesssession.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencebank.h"

#include <QTest>
#include <cstring>
#include <functional>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

constexpr quint64 kSecret = 20261130;

using Kernel = std::function<void(float *a, const float *b, float *c, int n)>;

// Calls `kernel` on the shape's buffers in a plain byte array laid out as the sandbox's.
class InProcessSession : public CorrectnessSession
{
public:
    explicit InProcessSession(Kernel kernel) : m_kernel(std::move(kernel)) {}

    qint64 alignment() const override { return BufferLayout::kAlignment; }
    SetUp setUp(CorrectnessLoop &, CorrectnessLoop::Shape &shape) override
    {
        m_memory = QByteArray(shape.layout.size(), '\0');
        CorrectnessLoop::fillGuards(m_memory.data(), shape.layout);
        return SetUp::Ready;
    }
    bool call(const CorrectnessLoop::Shape &shape, const ReferenceInstance &instance,
              const QString &) override
    {
        QList<float *> pointers;
        for (const auto &buffer : shape.placed.buffers) {
            char *at = m_memory.data() + buffer.offset;
            if (buffer.output)
                OutputChecker::fillSentinel(at, buffer.bytes);
            else
                std::memcpy(at, instance.inputs[buffer.parameter].constData(),
                            size_t(buffer.bytes));
            pointers.append(reinterpret_cast<float *>(at));
        }
        m_kernel(pointers[0], pointers[1], pointers[2], int(shape.config.sizes.value(u"n"_s)));
        return true;
    }
    const char *memory() const override { return m_memory.constData(); }
    void judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call) override
    {
        for (const auto &buffer : call.shape.placed.buffers) {
            if (buffer.output)
                loop.judgeOutput(call, buffer, call.memory + buffer.offset);
            else
                loop.checkInput(call, buffer);
        }
    }

private:
    Kernel m_kernel;
    QByteArray m_memory;
};

bool listed(int n)
{
    return n < 64 || n == 1000 || n == 65537 || n == 1000003;
}

} // namespace

class TestCorrectnessLoop : public QObject
{
    Q_OBJECT

private:
    Task m_task;
    RunReference m_reference;

    // The loop's result for `kernel`, with the wrong answer's text in *wrong.
    EvaluationResult judge(const Kernel &kernel, bool *correct, QString *wrong)
    {
        EvaluationResult result;
        std::optional<EvaluationRecorder::Failure> failure;
        CorrectnessLoop loop(m_task, m_reference, {result, failure, *wrong});
        InProcessSession session(kernel);
        *correct = loop.run(session);
        return result;
    }

    static QJsonObject correctnessData(const EvaluationResult &result)
    {
        const StageResult *stage = result.stage(QStringLiteral("correctness"));
        return stage ? stage->data : QJsonObject();
    }

private slots:
    void initTestCase()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/vector_add"));
        QVERIFY(loaded.ok());
        m_task = *loaded.task;
        // Expected outputs computed here (c = a + b): the reference's answer, without a sandbox.
        m_reference.shapes = ReferenceBank::plan(m_task, kSecret);
        for (CheckedShape &shape : m_reference.shapes)
            for (int k = 0; k < 4; ++k) {
                ReferenceInstance instance;
                instance.inputs =
                    ReferenceBank::inputsOf(m_task, kSecret, shape, k, &instance.distribution);
                QByteArray sum(instance.inputs[0].size(), Qt::Uninitialized);
                const auto *a = reinterpret_cast<const float *>(instance.inputs[0].constData());
                const auto *b = reinterpret_cast<const float *>(instance.inputs[1].constData());
                auto *c = reinterpret_cast<float *>(sum.data());
                for (qsizetype i = 0; i < sum.size() / 4; ++i)
                    c[i] = a[i] + b[i];
                instance.expected = {QByteArray(), QByteArray(), sum, QByteArray()};
                shape.instances.append(instance);
            }
        QCOMPARE(m_reference.count(false, false), int(m_task.correctnessShapes.size()));
        QCOMPARE(m_reference.count(true, true), ReferenceBank::kHiddenShapes);
    }

    void honestKernelPassesBothSets()
    {
        bool correct = false;
        QString wrong;
        const EvaluationResult result = judge(
            [](float *a, const float *b, float *c, int n) {
                for (int i = 0; i < n; ++i)
                    c[i] = a[i] + b[i];
            },
            &correct, &wrong);
        QVERIFY2(correct, qPrintable(wrong));
        const QJsonObject data = correctnessData(result);
        const int shapes = int(m_task.correctnessShapes.size());
        QCOMPARE(data.value(u"calls"_s).toInt(), 4 * (2 * shapes + ReferenceBank::kHiddenShapes));
        QVERIFY(!data.contains(u"failed_on"_s));
        QVERIFY(result.flags.isEmpty());
    }

    // Right at every listed size, the tail dropped elsewhere: only the hidden set sees it.
    void declaredSizesOnlyIsWrongOnTheHiddenSet()
    {
        bool correct = true;
        QString wrong;
        const EvaluationResult result = judge(
            [](float *a, const float *b, float *c, int n) {
                const int end = listed(n) ? n : n / 64 * 64;
                for (int i = 0; i < end; ++i)
                    c[i] = a[i] + b[i];
            },
            &correct, &wrong);
        QVERIFY(!correct);
        const QJsonObject data = correctnessData(result);
        QCOMPARE(data.value(u"failed_on"_s).toString(), u"hidden"_s);
        const QJsonObject failure = data.value(u"failure"_s).toObject();
        QCOMPARE(failure.value(u"set"_s).toString(), u"hidden"_s);
        // The user's text names the hidden shape.
        QVERIFY2(wrong.startsWith(u"c on hidden "_s + failure.value(u"shape"_s).toString()),
                 qPrintable(wrong));
    }

    void visibleBugIsReportedOnTheVisibleSet()
    {
        bool correct = true;
        QString wrong;
        const EvaluationResult result = judge(
            [](float *a, const float *b, float *c, int n) {
                for (int i = 0; i + 1 < n; ++i)
                    c[i] = a[i] + b[i];
            },
            &correct, &wrong);
        QVERIFY(!correct);
        QCOMPARE(correctnessData(result).value(u"failed_on"_s).toString(), u"visible"_s);
        QVERIFY2(wrong.startsWith(u"c on n=1 "_s), qPrintable(wrong));
    }

    // A flag first raised in the hidden set names no hidden shape; its evidence is in the data.
    void hiddenFlagsKeepTheirEvidenceOutOfTheMessage()
    {
        bool correct = true;
        QString wrong;
        const EvaluationResult result = judge(
            [](float *a, const float *b, float *c, int n) {
                for (int i = 0; i < n; ++i)
                    c[i] = a[i] + b[i];
                if (!listed(n))
                    a[0] = 0.0f; // scratch in an input, where no listed size looks
            },
            &correct, &wrong);
        QVERIFY(!correct);
        QCOMPARE(result.flags.size(), 1);
        QCOMPARE(result.flags.first().id, u"input_modified"_s);
        QVERIFY2(result.flags.first().message.endsWith(u"(on hidden inputs)"_s),
                 qPrintable(result.flags.first().message));
        const QJsonObject data = correctnessData(result);
        QVERIFY(data.value(u"hidden_evidence"_s).toObject().contains(u"input_modified"_s));
        QCOMPARE(data.value(u"failed_on"_s).toString(), u"hidden"_s);
    }
};

QTEST_GUILESS_MAIN(TestCorrectnessLoop)
#include "tst_correctnessloop.moc"
