#include "bestofnstrategy.h"
#include "fakeworld.h"

#include <QTest>

using namespace kiln;
using namespace kiln::test;

class TestBestOfNStrategy : public QObject
{
    Q_OBJECT

private slots:
    void samplesUntilNOrBudget_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("budget");
        QTest::addColumn<int>("parallelism");
        QTest::addColumn<QList<int>>("roundSizes");
        QTest::newRow("n limits") << 5 << 100 << 2 << QList<int>{2, 2, 1};
        QTest::newRow("budget limits") << 16 << 7 << 3 << QList<int>{3, 3, 1};
        QTest::newRow("one round") << 4 << 10 << 8 << QList<int>{4};
    }
    void samplesUntilNOrBudget()
    {
        QFETCH(int, n);
        QFETCH(int, budget);
        QFETCH(int, parallelism);
        QFETCH(QList<int>, roundSizes);
        BestOfNStrategy strategy;
        strategy.configure({{QStringLiteral("n"), n}, {QStringLiteral("reasoning_length"), 300}},
                           7);
        FakeWorld world;
        const RunLog log = drive(strategy, world, budget, parallelism);
        QList<int> sizes;
        for (const auto &round : log.rounds) {
            sizes.append(int(round.size()));
            for (const ExpansionRequest &request : round) {
                QCOMPARE(request.operation, Operation::Sample);
                QVERIFY(request.parents.isEmpty());
                QCOMPARE(request.reasoningLength, qint64(300));
            }
        }
        QCOMPARE(sizes, roundSizes);
        QVERIFY(!log.overAsked);
    }

    void endsWithEmptyAsk()
    {
        BestOfNStrategy strategy;
        strategy.configure({{QStringLiteral("n"), 3}}, 1);
        FakeWorld world;
        strategy.tell(world.evaluate(strategy.ask(10)));
        QVERIFY(strategy.ask(10).isEmpty());
        QVERIFY(strategy.ask(0).isEmpty());
    }

    void keepsTheBest()
    {
        BestOfNStrategy strategy;
        strategy.configure({{QStringLiteral("n"), 4}}, 1);
        QCOMPARE(strategy.ask(4).size(), 4);
        // A failure claiming a huge speedup must not win.
        NodeResult cheat = result(3, 50.0, false);
        cheat.speedup = 50.0;
        strategy.tell({result(1, 1.2), result(2, 2.5), cheat, result(4, 0.9)});
        QCOMPARE(strategy.nodes().bestId(), qint64(2));
    }

    void byDefaultSamplesUntilTheBudgetStopsIt()
    {
        BestOfNStrategy strategy;
        strategy.configure({}, 1);
        FakeWorld world;
        int issued = 0;
        for (int round = 0; round < 5; ++round) {
            const QList<ExpansionRequest> requests = strategy.ask(7);
            QCOMPARE(requests.size(), 7);  // never runs dry: only the engine's budget ends it
            issued += int(requests.size());
            strategy.tell(world.evaluate(requests));
        }
        QCOMPARE(issued, 35);
    }

    void stringValuesAreParsed()
    {
        BestOfNStrategy strategy;
        strategy.configure({{QStringLiteral("n"), QStringLiteral("2")}}, 1);
        QCOMPARE(strategy.ask(10).size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestBestOfNStrategy)
#include "tst_bestofnstrategy.moc"
