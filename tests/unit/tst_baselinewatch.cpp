// An outlying baseline: the reference's time far from the run's usual one is said, advisory.
#include "engine/baselinewatch.h"

#include <QtTest>

using namespace kiln;

class TestBaselineWatch : public QObject
{
    Q_OBJECT

private slots:
    void standsOut_data()
    {
        QTest::addColumn<QList<double>>("earlier");
        QTest::addColumn<double>("baseline");
        QTest::addColumn<bool>("flagged");
        const QList<double> usual{1.37, 1.38, 1.36, 1.40};
        QTest::newRow("usual") << usual << 1.39 << false;
        QTest::newRow("a fifth slower") << usual << 1.65 << false;
        QTest::newRow("half again slower") << usual << 2.05 << true;
        QTest::newRow("much faster") << usual << 0.9 << true;
        QTest::newRow("too few before") << QList<double>{1.37, 1.38} << 2.4 << false;
    }

    void standsOut()
    {
        QFETCH(QList<double>, earlier);
        QFETCH(double, baseline);
        QFETCH(bool, flagged);
        EvaluationResult result;
        result.verdict = Verdict::Pass;
        result.baselineMs = baseline;
        const std::optional<CheatFlag> flag = BaselineWatch::check(result, earlier);
        QCOMPARE(flag.has_value(), flagged);
        if (flag) {
            QCOMPARE(flag->id, QStringLiteral("baseline_outlier"));
            QVERIFY(!flag->blocking);
            QVERIFY(flag->message.contains(QStringLiteral("median of")));
        }
    }

    void untimedIsNeverFlagged()
    {
        EvaluationResult result;
        QVERIFY(!BaselineWatch::check(result, {1.0, 1.0, 1.0, 1.0}));
    }
};

QTEST_GUILESS_MAIN(TestBaselineWatch)
#include "tst_baselinewatch.moc"
