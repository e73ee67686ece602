// fast_p per KernelBench level (FastPMetrics): hand-made rows with known answers.
#include "engine/reports/fastpmetrics.h"

#include <QJsonObject>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

FastPSample sample(const QString &task, Verdict verdict, std::optional<double> speedup,
                   std::optional<double> compiled = std::nullopt)
{
    return FastPSample{task, verdict, speedup, compiled};
}

FastPProblem problem(int level, bool correct, std::optional<double> speedup,
                     std::optional<double> compiled = std::nullopt)
{
    return FastPProblem{u"t"_s, level, correct, speedup, compiled};
}

} // namespace

class TestFastPMetrics : public QObject
{
    Q_OBJECT

private slots:
    void noProblems();
    void thresholdsAndKeys();
    void fastPIsStrictlyAboveP();
    void byLevel();
    void flaggedBestNeverCounts();
    void taskInTwoRunsCountsOnce();
    void unsearchedTaskIsAProblem();
    void json();
    void levelFromTaskName_data();
    void levelFromTaskName();
};

void TestFastPMetrics::noProblems()
{
    QVERIFY(FastPMetrics::bestPerTask({}, {sample(u"kb1_001_a"_s, Verdict::Pass, 2.0)}).isEmpty());
    QCOMPARE(FastPMetrics::fraction({}, 0.0, false), 0.0);
    QVERIFY(FastPMetrics::byLevel({}).isEmpty());
    QVERIFY(FastPMetrics::toJson({}).isEmpty());
}

void TestFastPMetrics::thresholdsAndKeys()
{
    QCOMPARE(FastPMetrics::thresholds(), (QList<double>{0.0, 1.0, 1.5, 2.0}));
    QStringList keys;
    for (double p : FastPMetrics::thresholds())
        keys << FastPMetrics::key(p);
    QCOMPARE(keys, (QStringList{u"fast_0"_s, u"fast_1"_s, u"fast_1.5"_s, u"fast_2"_s}));
}

void TestFastPMetrics::fastPIsStrictlyAboveP()
{
    // fast_0 is correctness alone; above 0 the speedup must be strictly greater than p.
    QVERIFY(FastPMetrics::isFast(problem(1, true, 0.5), 0.0, false));
    QVERIFY(!FastPMetrics::isFast(problem(1, true, 0.5), 0.5, false));
    QVERIFY(FastPMetrics::isFast(problem(1, true, 1.01), 1.0, false));
    QVERIFY(!FastPMetrics::isFast(problem(1, true, 1.0), 1.0, false));
    QVERIFY(!FastPMetrics::isFast(problem(1, false, 9.0), 0.0, false));
    QVERIFY(!FastPMetrics::isFast(problem(1, false, 9.0), 1.0, false));
    // Against torch.compile: no timing is not faster, but still correct.
    QVERIFY(FastPMetrics::isFast(problem(1, true, 3.0), 0.0, true));
    QVERIFY(!FastPMetrics::isFast(problem(1, true, 3.0), 1.0, true));
    QVERIFY(FastPMetrics::isFast(problem(1, true, 3.0, 1.2), 1.0, true));
}

void TestFastPMetrics::byLevel()
{
    // Level 1: four problems with speedups 0.5, 1.2, 1.5 and 2.5 (compiled: 0.4, 0.9, 1.6, -),
    // one more that failed. Level 2: one correct at 1.1 (compiled 1.05).
    const QList<FastPProblem> problems{problem(1, true, 0.5, 0.4), problem(1, true, 1.2, 0.9),
                                       problem(1, true, 1.5, 1.6), problem(1, true, 2.5),
                                       problem(1, false, {}),      problem(2, true, 1.1, 1.05)};
    const QList<FastPLevel> rows = FastPMetrics::byLevel(problems);
    QCOMPARE(rows.size(), 2);
    const FastPLevel &one = rows[0];
    QCOMPARE(one.level, 1);
    QCOMPARE(one.problems, 5);
    QCOMPARE(one.correct, 4);
    QCOMPARE(one.compiledMeasured, 3);
    QCOMPARE(one.eager, (QList<double>{0.8, 0.6, 0.2, 0.2})); // 1.5 is not above 1.5
    QCOMPARE(one.compiled, (QList<double>{0.8, 0.2, 0.2, 0.0}));
    const FastPLevel &two = rows[1];
    QCOMPARE(two.level, 2);
    QCOMPARE(two.problems, 1);
    QCOMPARE(two.eager, (QList<double>{1.0, 1.0, 0.0, 0.0}));
    QCOMPARE(two.compiled, (QList<double>{1.0, 1.0, 0.0, 0.0}));
    // Other thresholds on demand (the plot's continuous p axis).
    QCOMPARE(FastPMetrics::byLevel(problems, {0.45, 3.0}).first().eager, (QList<double>{0.8, 0.0}));
}

void TestFastPMetrics::flaggedBestNeverCounts()
{
    const QMap<QString, int> levels{{u"kb1_001_a"_s, 1}, {u"kb1_002_b"_s, 1}};
    const QList<FastPProblem> problems = FastPMetrics::bestPerTask(
        levels, {sample(u"kb1_001_a"_s, Verdict::Flagged, 50.0, 40.0),
                 sample(u"kb1_001_a"_s, Verdict::Pass, 1.2, 0.8),
                 // Only flagged and wrong candidates: not correct, however fast.
                 sample(u"kb1_002_b"_s, Verdict::Flagged, 9.0, 9.0),
                 sample(u"kb1_002_b"_s, Verdict::Wrong, 3.0)});
    QCOMPARE(problems.size(), 2);
    QCOMPARE(problems[0].task, u"kb1_001_a"_s);
    QVERIFY(problems[0].correct);
    QCOMPARE(problems[0].speedup, std::optional<double>(1.2));
    QCOMPARE(problems[0].compiledSpeedup, std::optional<double>(0.8));
    QVERIFY(!problems[1].correct);
    QVERIFY(!problems[1].speedup);
    const FastPLevel row = FastPMetrics::byLevel(problems).first();
    QCOMPARE(row.eager, (QList<double>{0.5, 0.5, 0.0, 0.0}));
    QCOMPARE(row.compiled, (QList<double>{0.5, 0.0, 0.0, 0.0}));
}

void TestFastPMetrics::taskInTwoRunsCountsOnce()
{
    // The same problem searched by two runs: one problem, the best of both runs' passes (each
    // speedup the best against its own baseline).
    const QMap<QString, int> levels{{u"kb2_007_conv"_s, 2}};
    const QList<FastPProblem> problems =
        FastPMetrics::bestPerTask(levels, {sample(u"kb2_007_conv"_s, Verdict::Pass, 1.3, 1.1),
                                           sample(u"kb2_007_conv"_s, Verdict::Wrong, 8.0),
                                           sample(u"kb2_007_conv"_s, Verdict::Pass, 2.2, 0.9)});
    QCOMPARE(problems.size(), 1);
    QCOMPARE(problems[0].level, 2);
    QCOMPARE(problems[0].speedup, std::optional<double>(2.2));
    QCOMPARE(problems[0].compiledSpeedup, std::optional<double>(1.1));
    const FastPLevel row = FastPMetrics::byLevel(problems).first();
    QCOMPARE(row.problems, 1);
    QCOMPARE(row.eager, (QList<double>{1.0, 1.0, 1.0, 1.0}));
    QCOMPARE(row.compiled, (QList<double>{1.0, 1.0, 0.0, 0.0}));
}

void TestFastPMetrics::unsearchedTaskIsAProblem()
{
    // A task of a run that never got a candidate still counts in the denominator; samples of
    // tasks that are not problems are ignored.
    const QMap<QString, int> levels{{u"kb1_003_c"_s, 1}, {u"kb1_004_d"_s, 1}, {u"kb3_001_e"_s, 3}};
    const QList<FastPProblem> problems =
        FastPMetrics::bestPerTask(levels, {sample(u"kb1_003_c"_s, Verdict::Pass, 1.6),
                                           sample(u"softmax"_s, Verdict::Pass, 9.0)});
    QCOMPARE(problems.size(), 3);
    QCOMPARE(problems.last().level, 3); // sorted by level
    const QList<FastPLevel> rows = FastPMetrics::byLevel(problems);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].eager, (QList<double>{0.5, 0.5, 0.5, 0.0}));
    QCOMPARE(rows[1].problems, 1);
    QCOMPARE(rows[1].eager, (QList<double>{0.0, 0.0, 0.0, 0.0}));
}

void TestFastPMetrics::json()
{
    const QJsonObject object = FastPMetrics::toJson(FastPMetrics::byLevel(
        {problem(1, true, 1.6, 1.2), problem(1, false, {}), problem(3, true, 0.7)}));
    QCOMPARE(object.keys(), (QStringList{u"1"_s, u"3"_s}));
    const QJsonObject one = object.value(u"1"_s).toObject();
    QCOMPARE(one.value(u"problems"_s).toInt(), 2);
    QCOMPARE(one.value(u"correct"_s).toInt(), 1);
    QCOMPARE(one.value(u"fast_0"_s).toDouble(), 0.5);
    QCOMPARE(one.value(u"fast_1"_s).toDouble(), 0.5);
    QCOMPARE(one.value(u"fast_1.5"_s).toDouble(), 0.5);
    QCOMPARE(one.value(u"fast_2"_s).toDouble(), 0.0);
    const QJsonObject compiled = one.value(u"compiled"_s).toObject();
    QCOMPARE(compiled.value(u"problems"_s).toInt(), 2);
    QCOMPARE(compiled.value(u"measured"_s).toInt(), 1);
    QCOMPARE(compiled.value(u"fast_0"_s).toDouble(), 0.5);
    QCOMPARE(compiled.value(u"fast_1"_s).toDouble(), 0.5);
    QCOMPARE(compiled.value(u"fast_1.5"_s).toDouble(), 0.0);
    QCOMPARE(compiled.value(u"fast_2"_s).toDouble(), 0.0);
    const QJsonObject three = object.value(u"3"_s).toObject();
    QCOMPARE(three.value(u"fast_0"_s).toDouble(), 1.0);
    QCOMPARE(three.value(u"fast_1"_s).toDouble(), 0.0);
    QCOMPARE(three.value(u"compiled"_s).toObject().value(u"measured"_s).toInt(), 0);
}

void TestFastPMetrics::levelFromTaskName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("level"); // 0: none
    QTest::newRow("level 1") << u"kb1_019_relu"_s << 1;
    QTest::newRow("level 3") << u"kb3_044_minigpt_block"_s << 3;
    QTest::newRow("level 12") << u"kb12_001_x"_s << 12;
    QTest::newRow("own task") << u"softmax"_s << 0;
    QTest::newRow("no number") << u"kb_019_relu"_s << 0;
    QTest::newRow("no problem number") << u"kb1_relu"_s << 0;
    QTest::newRow("prefix inside") << u"my_kb1_019_relu"_s << 0;
}

void TestFastPMetrics::levelFromTaskName()
{
    QFETCH(QString, name);
    QFETCH(int, level);
    const std::optional<int> found = FastPMetrics::levelFromTaskName(name);
    QCOMPARE(found.value_or(0), level);
}

QTEST_GUILESS_MAIN(TestFastPMetrics)
#include "tst_fastpmetrics.moc"
