#include "fakeworld.h"
#include "greedystrategy.h"

#include <QTest>

using namespace kiln;
using namespace kiln::test;

class TestGreedyStrategy : public QObject
{
    Q_OBJECT

private slots:
    void expandsTheBest()
    {
        GreedyStrategy strategy;
        strategy.configure({{QStringLiteral("initial"), 2}, {QStringLiteral("max_children"), 2}},
                           1);
        // The initial samples come alone: there is nothing to expand until they are told.
        const QList<ExpansionRequest> first = strategy.ask(5);
        QCOMPARE(first.size(), 2);
        QCOMPARE(first[0].operation, Operation::Sample);
        strategy.tell({result(1, 1.0), result(2, 2.0)});

        // Best (2) gets its max_children, then the next best (1).
        QList<ExpansionRequest> next = strategy.ask(3);
        QCOMPARE(next.size(), 3);
        QCOMPARE(next[0].parents, QList<qint64>{2});
        QCOMPARE(next[1].parents, QList<qint64>{2});
        QCOMPARE(next[2].parents, QList<qint64>{1});
        QCOMPARE(next[0].operation, Operation::Refine);
        QCOMPARE(next[0].generation, 1);
        strategy.tell({result(3, 3.0), result(4, 0.5), result(5, 1.1)});

        // Node 3 is now the best; then 5 (1.1, no children) before 1 (one child left).
        next = strategy.ask(4);
        QCOMPARE(next.size(), 4);
        QCOMPARE(next[0].parents, QList<qint64>{3});
        QCOMPARE(next[1].parents, QList<qint64>{3});
        QCOMPARE(next[2].parents, QList<qint64>{5});
        QCOMPARE(next[3].parents, QList<qint64>{5});
    }

    void samplesWhenNothingIsExpandable()
    {
        GreedyStrategy strategy;
        strategy.configure({{QStringLiteral("initial"), 1}, {QStringLiteral("max_children"), 1}},
                           1);
        strategy.ask(1);
        strategy.tell({result(1, 0.0, false, false)}); // no code: not expandable
        QList<ExpansionRequest> next = strategy.ask(2);
        QCOMPARE(next.size(), 2);
        QCOMPARE(next[0].operation, Operation::Sample);
        QCOMPARE(next[1].operation, Operation::Sample);
    }

    void expandsBestInAWorldRun()
    {
        GreedyStrategy strategy;
        strategy.configure({{QStringLiteral("max_children"), 1}}, 2);
        FakeWorld world(4);
        RunLog log;
        for (int round = 0; round < 20; ++round) {
            const QList<ExpansionRequest> requests = strategy.ask(1);
            QCOMPARE(requests.size(), 1);
            if (round >= 4) {
                // With one child per node, the parent is the best node without a child.
                qint64 expected = 0;
                QList<qint64> ids = strategy.nodes().ids();
                strategy.nodes().sortByRank(ids);
                for (qint64 id : ids) {
                    const SearchNode &n = strategy.nodes().at(id);
                    if (n.expandable() && n.children.isEmpty()) {
                        expected = id;
                        break;
                    }
                }
                if (expected == 0)
                    QCOMPARE(requests[0].operation, Operation::Sample);
                else
                    QCOMPARE(requests[0].parents, QList<qint64>{expected});
            }
            strategy.tell(world.evaluate(requests));
        }
    }

    void deterministic()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            GreedyStrategy strategy;
            strategy.configure({}, 3);
            FakeWorld world(5);
            log = drive(strategy, world, 40, 3);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
        QVERIFY(!logs[0].overAsked);
    }
};

QTEST_GUILESS_MAIN(TestGreedyStrategy)
#include "tst_greedystrategy.moc"
