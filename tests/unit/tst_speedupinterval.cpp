// The speedup's confidence interval: a percentile bootstrap over paired timed calls.
#include "core/speedupinterval.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace kiln;

class TestSpeedupInterval : public QObject
{
    Q_OBJECT

private slots:
    void fewerThanTwoPairsHaveNoInterval()
    {
        QVERIFY(!SpeedupInterval::bootstrap({}, {}));
        QVERIFY(!SpeedupInterval::bootstrap({1.0}, {2.0}));
        QVERIFY(!SpeedupInterval::bootstrap({0.0, 0.0}, {1.0, 1.0}));
    }

    void identicalPairsGiveAPointInterval()
    {
        const std::vector<double> candidate(40, 0.5), baseline(40, 1.0);
        const auto interval = SpeedupInterval::bootstrap(candidate, baseline);
        QVERIFY(interval);
        QCOMPARE(interval->estimate, 2.0);
        QCOMPARE(interval->low, 2.0);
        QCOMPARE(interval->high, 2.0);
    }

    // Noise common to both halves of a call (a slow moment hits both) moves the ratio little:
    // pairs are resampled whole.
    void commonNoiseCancelsInPairs()
    {
        std::mt19937 random(7);
        std::lognormal_distribution<double> slowdown(0.0, 0.3);
        std::vector<double> candidate, baseline;
        for (int i = 0; i < 200; ++i) {
            const double s = slowdown(random);
            candidate.push_back(0.5 * s);
            baseline.push_back(1.0 * s * (1.0 + 0.001 * (i % 3)));
        }
        const auto interval = SpeedupInterval::bootstrap(candidate, baseline);
        QVERIFY(interval);
        QVERIFY(interval->contains(interval->estimate));
        QVERIFY2(interval->relativeHalfWidth() < 0.2, "paired noise must mostly cancel");
        QVERIFY(interval->low > 1.5 && interval->high < 2.7);
    }

    // Independent noise widens the interval as 1/sqrt(n) shrinks it; it covers the truth.
    void widthShrinksWithTrialsAndCoversTheTruth()
    {
        auto draw = [](int n, unsigned seed) {
            std::mt19937 random(seed);
            std::normal_distribution<double> noise(1.0, 0.1);
            std::vector<double> c, b;
            for (int i = 0; i < n; ++i) {
                c.push_back(1.0 * noise(random));
                b.push_back(3.0 * noise(random));
            }
            return *SpeedupInterval::bootstrap(c, b);
        };
        const SpeedupInterval few = draw(20, 1), many = draw(800, 1);
        QVERIFY(few.relativeHalfWidth() > 2 * many.relativeHalfWidth());
        QVERIFY(many.contains(3.0));
        QVERIFY(few.low <= few.estimate && few.estimate <= few.high);
    }

    void deterministic()
    {
        const std::vector<double> c{1.0, 1.2, 0.9, 1.1, 1.05}, b{2.0, 2.3, 1.9, 2.2, 2.1};
        const auto first = SpeedupInterval::bootstrap(c, b),
                   second = SpeedupInterval::bootstrap(c, b);
        QCOMPARE(first->low, second->low);
        QCOMPARE(first->high, second->high);
    }

    // Fast on two of four input kinds, slow on the others: the mean of per-kind medians is the
    // same whichever way the calls' overall median would fall.
    void inputKindsAreWeighedAlike()
    {
        std::vector<double> candidate, baseline;
        for (int i = 0; i < 40; ++i) {
            candidate.push_back(i % 4 < 2 ? 0.27 : 0.61);
            baseline.push_back(1.36);
        }
        QCOMPARE(SpeedupInterval::typicalTime(candidate, 4), 0.44);
        const auto interval = SpeedupInterval::bootstrap(candidate, baseline, 4);
        QVERIFY(interval);
        QVERIFY(qAbs(interval->estimate - 1.36 / 0.44) < 1e-9);
        QVERIFY(interval->high - interval->low < 1e-9); // every kind is exact
        // One call more of a fast kind would move a plain median; not this estimate.
        candidate.push_back(0.27);
        baseline.push_back(1.36);
        QVERIFY(qAbs(SpeedupInterval::typicalTime(candidate, 4) - 0.44) < 1e-9);
    }

    void comparisonsRespectTheNoise()
    {
        const SpeedupInterval a{2.00, 1.95, 2.05}, b{2.03, 1.99, 2.07}, c{2.40, 2.35, 2.45};
        QVERIFY(!SpeedupInterval::clearlyFaster(b, a)); // overlapping: within noise
        QVERIFY(!SpeedupInterval::clearlyFaster(a, b));
        QVERIFY(SpeedupInterval::clearlyFaster(c, a));
        QVERIFY(!SpeedupInterval::clearlyFaster(a, c));
        // Apart, but inside the machine's noise floor.
        QVERIFY(!SpeedupInterval::clearlyFaster(c, a, 0.25));
    }

    void textAndJson()
    {
        const SpeedupInterval interval{2.31, 2.28, 2.35};
        QCOMPARE(interval.text(), QStringLiteral("2.31x ± 0.04"));
        const auto back = SpeedupInterval::fromJson(interval.toJson());
        QVERIFY(back);
        QCOMPARE(back->low, 2.28);
        QCOMPARE(back->high, 2.35);
        QVERIFY(!SpeedupInterval::fromJson(QJsonObject()));
    }
};

QTEST_GUILESS_MAIN(TestSpeedupInterval)
#include "tst_speedupinterval.moc"
