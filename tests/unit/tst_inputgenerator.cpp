#include "tasks/taskloader.h"
#include "verifier/harness/inputgenerator.h"
#include "verifier/harness/referencebank.h"

#include <QSet>
#include <QTest>
#include <cmath>
#include <cstring>

using namespace kiln;

namespace {

std::vector<float> floats(const QByteArray &bytes)
{
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.constData(), values.size() * 4);
    return values;
}

ValueDistribution distribution(ValueDistribution::Kind kind, double a, double b, double offset = 0)
{
    ValueDistribution d;
    d.kind = kind;
    d.a = a;
    d.b = b;
    d.offset = offset;
    return d;
}

} // namespace

class TestInputGenerator : public QObject
{
    Q_OBJECT

private slots:
    void sameSeedSameValues()
    {
        const auto d = distribution(ValueDistribution::Kind::Normal, 0, 1);
        QCOMPARE(InputGenerator::generate(d, 1000, QStringLiteral("f32"), 7),
                 InputGenerator::generate(d, 1000, QStringLiteral("f32"), 7));
        QVERIFY(InputGenerator::generate(d, 1000, QStringLiteral("f32"), 7) !=
                InputGenerator::generate(d, 1000, QStringLiteral("f32"), 8));
    }

    void seedsDependOnEveryPart()
    {
        const quint64 base = InputGenerator::deriveSeed(1, QStringLiteral("softmax"), 0, 0);
        QCOMPARE(InputGenerator::deriveSeed(1, QStringLiteral("softmax"), 0, 0), base);
        QVERIFY(InputGenerator::deriveSeed(2, QStringLiteral("softmax"), 0, 0) != base);
        QVERIFY(InputGenerator::deriveSeed(1, QStringLiteral("matmul"), 0, 0) != base);
        QVERIFY(InputGenerator::deriveSeed(1, QStringLiteral("softmax"), 1, 0) != base);
        QVERIFY(InputGenerator::deriveSeed(1, QStringLiteral("softmax"), 0, 1) != base);
    }

    void moments_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("a");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("offset");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("std");
        QTest::newRow("standard normal")
            << int(ValueDistribution::Kind::Normal) << 0.0 << 1.0 << 0.0 << 0.0 << 1.0;
        QTest::newRow("shifted normal")
            << int(ValueDistribution::Kind::Normal) << 3.0 << 2.0 << 0.0 << 3.0 << 2.0;
        QTest::newRow("offset") << int(ValueDistribution::Kind::Normal) << 0.0 << 1.0 << 100.0
                                << 100.0 << 1.0;
        QTest::newRow("uniform") << int(ValueDistribution::Kind::Uniform) << -10.0 << 10.0 << 0.0
                                 << 0.0 << 20.0 / std::sqrt(12.0);
        QTest::newRow("student t, 5 dof") << int(ValueDistribution::Kind::StudentT) << 5.0 << 1.0
                                          << 0.0 << 0.0 << std::sqrt(5.0 / 3.0);
    }

    void moments()
    {
        QFETCH(int, kind);
        QFETCH(double, a);
        QFETCH(double, b);
        QFETCH(double, offset);
        QFETCH(double, mean);
        QFETCH(double, std);
        const auto values = floats(
            InputGenerator::generate(distribution(ValueDistribution::Kind(kind), a, b, offset),
                                     200000, QStringLiteral("f32"), 11));
        double sum = 0, squares = 0;
        for (float v : values)
            sum += v;
        const double m = sum / values.size();
        for (float v : values)
            squares += (v - m) * (v - m);
        const double s = std::sqrt(squares / values.size());
        QVERIFY2(std::fabs(m - mean) < 0.03 * std, qPrintable(QString::number(m)));
        QVERIFY2(std::fabs(s - std) < 0.05 * std, qPrintable(QString::number(s)));
    }

    void uniformStaysInRange()
    {
        const auto values =
            floats(InputGenerator::generate(distribution(ValueDistribution::Kind::Uniform, -2, 3),
                                            10000, QStringLiteral("f32"), 3));
        for (float v : values)
            QVERIFY(v >= -2.0f && v <= 3.0f);
    }

    void heavyTailsAreHeavy()
    {
        // Two degrees of freedom: values far beyond anything a normal sample of this size shows.
        const auto values =
            floats(InputGenerator::generate(distribution(ValueDistribution::Kind::StudentT, 2, 1),
                                            100000, QStringLiteral("f32"), 5));
        float largest = 0;
        for (float v : values) {
            QVERIFY(std::isfinite(v));
            largest = std::max(largest, std::fabs(v));
        }
        QVERIFY2(largest > 20.0f, qPrintable(QString::number(largest)));
    }

    void integersAreRounded()
    {
        const QByteArray bytes = InputGenerator::generate(
            distribution(ValueDistribution::Kind::Uniform, -5, 5), 100, QStringLiteral("i32"), 1);
        std::vector<qint32> values(100);
        std::memcpy(values.data(), bytes.constData(), 400);
        bool sawNonZero = false;
        for (qint32 v : values) {
            QVERIFY(v >= -5 && v <= 5);
            sawNonZero = sawNonZero || v != 0;
        }
        QVERIFY(sawNonZero);
    }

    void taskInputsAndDistributionRotation()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/layernorm"));
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorStrings().join(QLatin1Char('\n'))));
        const Task &task = *loaded.task;
        ShapeConfig shape;
        shape.sizes = {{QStringLiteral("rows"), 3}, {QStringLiteral("cols"), 5}};
        const QList<QByteArray> buffers =
            InputGenerator::inputs(task, shape, task.distributions.first(), 9);
        QCOMPARE(buffers.size(), task.parameters.size());
        for (int p = 0; p < task.parameters.size(); ++p) {
            if (task.parameters[p].role == TaskParameter::Role::Input)
                QCOMPARE(buffers[p].size(), 4 * task.elementCount(task.parameters[p], shape));
            else
                QVERIFY(buffers[p].isEmpty());
        }
        // Inputs of one instance differ from one another (their own streams).
        QVERIFY(buffers[0].left(20) != buffers[1].left(20));
        QSet<QString> seen;
        for (int k = 0; k < task.distributions.size(); ++k)
            seen.insert(InputGenerator::distributionFor(task, k).name);
        QCOMPARE(seen.size(), task.distributions.size());
    }

    // The chunked generator of the GPU's timing shapes: deterministic whatever the thread
    // scheduling, every chunk its own stream, and still the task's distribution.
    void parallelChunksAreDeterministic()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/vector_add"));
        QVERIFY(loaded.ok());
        const Task &task = *loaded.task;
        ShapeConfig shape;
        shape.sizes = {{QStringLiteral("n"), (3 << 20) + 7}}; // three chunks and a tail
        const ValueDistribution normal{QStringLiteral("normal"), ValueDistribution::Kind::Normal, 0,
                                       1, 0};
        const QList<QByteArray> a = InputGenerator::inputsParallel(task, shape, normal, 5);
        const QList<QByteArray> b = InputGenerator::inputsParallel(task, shape, normal, 5);
        QCOMPARE(a, b);
        QCOMPARE(a[0].size(), 4 * ((3 << 20) + 7));
        QVERIFY(a[0] != a[1]);
        QVERIFY(a != InputGenerator::inputsParallel(task, shape, normal, 6));
        // Chunks are not copies of one another.
        QVERIFY(a[0].mid(0, 4096) != a[0].mid(4 << 20, 4096));
        double sum = 0.0, squares = 0.0;
        const qint64 count = a[0].size() / 4;
        for (qint64 i = 0; i < count; ++i) {
            float v;
            std::memcpy(&v, a[0].constData() + 4 * i, 4);
            sum += v;
            squares += double(v) * v;
        }
        QVERIFY(std::abs(sum / count) < 0.01);
        QVERIFY(std::abs(squares / count - 1.0) < 0.01);
    }

    // A mixed buffer: runs of each distribution, so a few probed elements do not tell the rest.
    void mixturesComeInRuns()
    {
        const auto centred = distribution(ValueDistribution::Kind::Normal, 0, 1);
        const auto offset = distribution(ValueDistribution::Kind::Normal, 0, 1, 100);
        QCOMPARE(InputGenerator::generateMixed({centred}, 1000, QStringLiteral("f32"), 3),
                 InputGenerator::generate(centred, 1000, QStringLiteral("f32"), 3));
        const QByteArray mixed =
            InputGenerator::generateMixed({centred, offset}, 20000, QStringLiteral("f32"), 3);
        QCOMPARE(mixed,
                 InputGenerator::generateMixed({centred, offset}, 20000, QStringLiteral("f32"), 3));
        int high = 0, changes = 0;
        bool wasHigh = false;
        for (const float v : floats(mixed)) {
            const bool isHigh = v > 50.0f;
            high += isHigh ? 1 : 0;
            changes += isHigh != wasHigh ? 1 : 0;
            wasHigh = isHigh;
        }
        QVERIFY2(high > 7000 && high < 13000, qPrintable(QString::number(high)));
        QVERIFY2(changes > 60 && changes < 600, qPrintable(QString::number(changes)));
        QCOMPARE(InputGenerator::mixtureName({centred, offset}), QStringLiteral("mixed"));
    }

    // The hidden set's distributions: every one of the task's and the mixture take turns, from
    // a starting point the secret sets per stream.
    void hiddenDistributionsTakeTurns()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/softmax"));
        QVERIFY(loaded.ok());
        const Task &task = *loaded.task;
        QSet<QString> seen;
        bool secretMatters = false;
        for (int stream = 0; stream < 16; ++stream) {
            QSet<QString> ofStream;
            for (int k = 0; k < 4; ++k) {
                const auto mixture = InputGenerator::hiddenDistributions(task, 1, stream, k);
                ofStream.insert(InputGenerator::mixtureName(mixture));
                secretMatters = secretMatters ||
                                InputGenerator::mixtureName(mixture) !=
                                    InputGenerator::mixtureName(
                                        InputGenerator::hiddenDistributions(task, 2, stream, k));
            }
            QCOMPARE(ofStream.size(), 4);
            seen.unite(ofStream);
        }
        QCOMPARE(seen.size(), int(task.distributions.size()) + 1);
        QVERIFY(seen.contains(QStringLiteral("mixed")));
        QVERIFY(secretMatters);
    }

    // The visible set: the task's shapes on inputs from the public seed, whatever the secret;
    // the hidden set: the same shapes and the drawn ones, on inputs from the secret.
    void visibleAndHiddenSets()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/layernorm"));
        QVERIFY(loaded.ok());
        const Task &task = *loaded.task;
        const QList<CheckedShape> plan = ReferenceBank::plan(task, 1);
        const int declared = int(task.correctnessShapes.size());
        QCOMPARE(plan.size(), 2 * declared + ReferenceBank::kHiddenShapes);
        for (int s = 0; s < plan.size(); ++s) {
            QCOMPARE(plan[s].hidden, s >= declared);
            QCOMPARE(plan[s].drawn, s >= 2 * declared);
            if (s < 2 * declared)
                QCOMPARE(plan[s].config.sizes, task.correctnessShapes[s % declared].sizes);
        }
        QVERIFY(plan.last().config.sizes != ReferenceBank::plan(task, 2).last().config.sizes);
        QString a, b;
        QCOMPARE(ReferenceBank::inputsOf(task, 1, plan[2], 0, &a),
                 ReferenceBank::inputsOf(task, 2, plan[2], 0, &b));
        QCOMPARE(a, QStringLiteral("normal"));
        const CheckedShape &hidden = plan[declared + 2];
        QVERIFY(ReferenceBank::inputsOf(task, 1, hidden, 0, &a) !=
                ReferenceBank::inputsOf(task, 2, hidden, 0, &b));
        QVERIFY(ReferenceBank::inputsOf(task, 1, hidden, 0, &a) !=
                ReferenceBank::inputsOf(task, 1, plan[2], 0, &b));
    }
};

QTEST_GUILESS_MAIN(TestInputGenerator)
#include "tst_inputgenerator.moc"
