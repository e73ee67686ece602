#include "engine/reports/coveragemetrics.h"

#include <QtTest>
#include <cmath>

using kiln::CoverageMetrics;

namespace {

// Reference by brute force: enumerate every k-subset of n and count those with a success.
double bruteForceAtK(int n, int c, int k)
{
    int total = 0, hit = 0;
    for (int mask = 0; mask < (1 << n); ++mask) {
        if (__builtin_popcount(mask) != k)
            continue;
        ++total;
        hit += (mask & ((1 << c) - 1)) ? 1 : 0; // the first c samples are the successes
    }
    return total ? double(hit) / total : 0.0;
}

} // namespace

class TestCoverageMetrics : public QObject
{
    Q_OBJECT

private slots:
    void atKMatchesEnumeration_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("c");
        QTest::addColumn<int>("k");
        for (int n : {1, 4, 7, 10})
            for (int c = 0; c <= n; c += std::max(1, n / 3))
                for (int k = 1; k <= n; k += std::max(1, n / 4))
                    QTest::addRow("n%d c%d k%d", n, c, k) << n << c << k;
    }
    void atKMatchesEnumeration()
    {
        QFETCH(int, n);
        QFETCH(int, c);
        QFETCH(int, k);
        QVERIFY(std::abs(CoverageMetrics::atK(n, c, k) - bruteForceAtK(n, c, k)) < 1e-12);
    }

    void passAtOneIsTheSuccessRate()
    {
        const QList<bool> correct{true, false, false, true, false};
        QCOMPARE(CoverageMetrics::passAtK(correct, 1), 0.4);
        QCOMPARE(CoverageMetrics::passAtK(correct, 5), 1.0);
        QCOMPARE(CoverageMetrics::passAtK({false, false}, 2), 0.0);
        QCOMPARE(CoverageMetrics::passAtK(correct, 6), 0.0); // k > n is undefined: reported 0
    }

    void fastPCountsOnlyCorrectAndFastEnough()
    {
        const QList<bool> correct{true, true, false, true};
        const QList<double> speedups{0.5, 1.5, 9.0, 2.5};
        // Successes at p = 1: samples 1 and 3 (sample 2 is fast but wrong).
        QCOMPARE(CoverageMetrics::fastPAtK(correct, speedups, 1.0, 1), 0.5);
        QCOMPARE(CoverageMetrics::fastPAtK(correct, speedups, 2.0, 1), 0.25);
        QCOMPARE(CoverageMetrics::fastPAtK(correct, speedups, 3.0, 4), 0.0);
    }

    void pearson()
    {
        QCOMPARE(CoverageMetrics::pearson({1, 2, 3, 4}, {2, 4, 6, 8}), 1.0);
        QCOMPARE(CoverageMetrics::pearson({1, 2, 3, 4}, {8, 6, 4, 2}), -1.0);
        QCOMPARE(CoverageMetrics::pearson({1, 1, 1}, {1, 2, 3}), 0.0);
        const double r = CoverageMetrics::pearson({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5});
        QVERIFY(std::abs(r - 0.8) < 1e-12);
    }
};

QTEST_APPLESS_MAIN(TestCoverageMetrics)
#include "tst_coveragemetrics.moc"
