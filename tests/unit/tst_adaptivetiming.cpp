#include "verifier/harness/adaptivetiming.h"

#include <QTest>

using namespace kiln;

class TestAdaptiveTiming : public QObject
{
    Q_OBJECT

private slots:
    void stops_data()
    {
        QTest::addColumn<QList<double>>("samples");
        QTest::addColumn<double>("elapsed");
        QTest::addColumn<int>("stop");
        AdaptiveTiming::Rules rules; // warmup 2, min 5, max 1000, 1 %, 300 ms
        const QList<double> steady{9, 9, 1, 1, 1, 1, 1};
        QTest::newRow("steady converges at the minimum")
            << steady << 10.0 << int(AdaptiveTiming::Stop::Converged);
        QTest::newRow("too few to converge")
            << QList<double>{9, 9, 1, 1, 1, 1} << 10.0 << int(AdaptiveTiming::Stop::Continue);
        QTest::newRow("noisy keeps going")
            << QList<double>{1, 1, 1, 2, 1, 2, 1, 2} << 10.0 << int(AdaptiveTiming::Stop::Continue);
        QTest::newRow("noisy hits the time cap")
            << QList<double>{1, 1, 1, 2, 1, 2, 1, 2} << 301.0 << int(AdaptiveTiming::Stop::TimeCap);
        QTest::newRow("time cap needs two samples")
            << QList<double>{1, 1, 1} << 500.0 << int(AdaptiveTiming::Stop::Continue);
        QList<double> many;
        for (int i = 0; i < 1002; ++i)
            many << (i % 2 ? 1.0 : 3.0);
        QTest::newRow("trial cap") << many << 10.0 << int(AdaptiveTiming::Stop::TrialCap);
        // One outlier in ten moves the mean's standard error above 1 %, not the median's.
        QList<double> outliers{9, 9};
        for (int i = 0; i < 20; ++i)
            outliers << (i % 10 == 9 ? 3.0 : 1.0 + 0.001 * (i % 3));
        QTest::newRow("outliers do not hold a settled median")
            << outliers << 10.0 << int(AdaptiveTiming::Stop::Converged);
    }

    void stops()
    {
        QFETCH(QList<double>, samples);
        QFETCH(double, elapsed);
        QFETCH(int, stop);
        AdaptiveTiming timing{AdaptiveTiming::Rules{}};
        for (double s : samples)
            timing.add(s);
        QCOMPARE(int(timing.decide(elapsed)), stop);
    }

    void warmupIsDiscarded()
    {
        AdaptiveTiming timing{AdaptiveTiming::Rules{}};
        for (double s : {100.0, 50.0, 2.0, 4.0})
            timing.add(s);
        QCOMPARE(timing.seen(), 4);
        QCOMPARE(timing.samples().size(), size_t(2));
        const TimingStats stats = timing.stats();
        QCOMPARE(stats.n, 2);
        QCOMPARE(stats.mean, 3.0);
        QCOMPARE(stats.min, 2.0);
        QCOMPARE(stats.max, 4.0);
    }

    // Calls rotate through input distributions: the loop ends on whole rotations only, so two
    // judgements of one kernel take their medians over the same mix of inputs.
    void stopsOnWholeRotationsOfTheInputs()
    {
        AdaptiveTiming::Rules rules;
        rules.cycle = 4;
        AdaptiveTiming timing(rules);
        for (int i = 0; i < rules.warmup; ++i)
            timing.add(1.0);
        QList<int> converged;
        for (int n = 1; n <= 16; ++n) {
            timing.add(1.0);
            if (timing.decide(0.0) == AdaptiveTiming::Stop::Converged)
                converged << n;
        }
        // At least three calls of each kind (12), and then only on whole rotations.
        QCOMPARE(converged, (QList<int>{12, 16}));
        // Out of time in the middle of a rotation: the rotation still finishes.
        AdaptiveTiming late(rules);
        for (double s : {1.0, 1.0, 1.0, 5.0, 1.0, 9.0, 2.0})
            late.add(s);
        QCOMPARE(late.decide(1e9), AdaptiveTiming::Stop::Continue); // 5 kept
        for (double s : {1.0, 1.0})
            late.add(s);
        QCOMPARE(late.decide(1e9), AdaptiveTiming::Stop::Continue); // 7 kept
        late.add(1.0);
        QCOMPARE(late.decide(1e9), AdaptiveTiming::Stop::TimeCap); // 8: a whole rotation
    }

    // A kernel fast on half of the input kinds and slow on the rest: the overall median jumps
    // between the two, the mean of the per-kind medians does not, and each kind is tight.
    void bimodalKindsConvergeOnTheirMedians()
    {
        AdaptiveTiming::Rules rules;
        rules.cycle = 4;
        rules.warmup = 0;
        AdaptiveTiming timing(rules);
        for (int i = 0; i < 12; ++i)
            timing.add(i % 4 < 2 ? 0.27 : 0.61);
        QCOMPARE(timing.decide(0.0), AdaptiveTiming::Stop::Converged);
        QVERIFY(timing.medianStandardError() < 1e-9);
    }

    void batchesFitTheBudget()
    {
        AdaptiveTiming::Rules rules;
        rules.budgetMs = 100;
        AdaptiveTiming timing(rules);
        // Nothing seen: enough for warm-up plus the minimum, within the limit.
        QCOMPARE(timing.nextBatch(0.0, 16), 7);
        QCOMPARE(timing.nextBatch(0.0, 4), 4);
        for (int i = 0; i < 10; ++i)
            timing.add(1.0 + (i % 3));
        // 10 trials took 50 ms: 10 more fit in the remaining 50 ms.
        QCOMPARE(timing.nextBatch(50.0, 16), 10);
        QCOMPARE(timing.nextBatch(50.0, 4), 4);
        QCOMPARE(timing.nextBatch(99.0, 16), 1); // never zero
    }

    // The CUDA session's batches (at most slots - 1 calls) after its 3 warm-up calls, over 4
    // input kinds: a steady kernel stops at the rule's minimum, 12 kept calls, whatever the
    // limit. Batches of 4 (five slots) or 2 (three) that ended past every rotation let decide()
    // see no whole rotation until the time budget ran out.
    void batchesEndOnWholeRotations_data()
    {
        QTest::addColumn<int>("limit");
        QTest::addColumn<QList<int>>("batches");
        QTest::newRow("five slots") << 4 << QList<int>{4, 4, 4, 3};
        QTest::newRow("four slots") << 3 << QList<int>{3, 3, 3, 3, 3};
        QTest::newRow("three slots") << 2 << QList<int>{2, 2, 2, 2, 2, 2, 2, 1};
        QTest::newRow("two slots") << 1 << QList<int>(15, 1);
    }

    void batchesEndOnWholeRotations()
    {
        QFETCH(int, limit);
        QFETCH(QList<int>, batches);
        AdaptiveTiming::Rules rules;
        rules.warmup = 3;
        rules.minTrials = 10;
        rules.cycle = 4;
        rules.targetRelativeSem = 0.005;
        rules.budgetMs = 400;
        AdaptiveTiming timing(rules);
        QList<int> asked;
        int calls = 0;
        double elapsed = 0.0;
        while (timing.decide(elapsed) == AdaptiveTiming::Stop::Continue && calls < 1000) {
            const int batch = timing.nextBatch(elapsed, limit);
            asked << batch;
            for (int i = 0; i < batch; ++i)
                timing.add(1.0 + 0.001 * (calls++ % 3));
            elapsed += 4.0 * batch;
        }
        QCOMPARE(timing.decide(elapsed), AdaptiveTiming::Stop::Converged);
        QCOMPARE(asked, batches);
        QCOMPARE(calls, 15);
    }

    // Out of budget in the middle of a rotation: the next batch finishes it where the limit
    // allows, and a limit below the rotation still makes progress.
    void aSpentBudgetFinishesTheRotation()
    {
        AdaptiveTiming::Rules rules;
        rules.warmup = 0;
        rules.cycle = 4;
        rules.budgetMs = 100;
        AdaptiveTiming timing(rules);
        for (int i = 0; i < 13; ++i)
            timing.add(i % 3 ? 1.0 : 2.0); // noisy: does not converge
        QCOMPARE(timing.nextBatch(150.0, 8), 3);
        QCOMPARE(timing.nextBatch(150.0, 2), 1);
        // Nor past the trial cap to finish a rotation: the cap ends the loop anyway.
        AdaptiveTiming::Rules capped = rules;
        capped.maxTrials = 14;
        AdaptiveTiming nearCap(capped);
        for (int i = 0; i < 13; ++i)
            nearCap.add(i % 3 ? 1.0 : 2.0);
        QCOMPARE(nearCap.nextBatch(150.0, 8), 1);
        nearCap.add(1.0);
        QCOMPARE(nearCap.decide(150.0), AdaptiveTiming::Stop::TrialCap);
        for (int i = 0; i < 3; ++i)
            timing.add(1.0);
        QCOMPARE(timing.decide(150.0), AdaptiveTiming::Stop::TimeCap);
    }
};

QTEST_GUILESS_MAIN(TestAdaptiveTiming)
#include "tst_adaptivetiming.moc"
