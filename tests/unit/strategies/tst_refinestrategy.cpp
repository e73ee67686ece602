#include "fakeworld.h"
#include "refinestrategy.h"

#include <QTest>

using namespace kiln;
using namespace kiln::test;

class TestRefineStrategy : public QObject
{
    Q_OBJECT

private slots:
    void gridOfTrajectories()
    {
        RefineStrategy strategy;
        strategy.configure({{QStringLiteral("width"), 3}, {QStringLiteral("turns"), 4}}, 5);
        FakeWorld world;
        world.noCodeRate = 0.0;
        const RunLog log = drive(strategy, world, 100, 8);
        QCOMPARE(log.rounds.size(), 4);
        QCOMPARE(log.requests, 12);
        for (int turn = 0; turn < 4; ++turn) {
            const auto &round = log.rounds[turn];
            QCOMPARE(round.size(), 3);
            for (int t = 0; t < 3; ++t) {
                const ExpansionRequest &request = round[t];
                QCOMPARE(request.island, t);
                QCOMPARE(request.generation, turn);
                if (turn == 0) {
                    QCOMPARE(request.operation, Operation::Sample);
                    continue;
                }
                QCOMPARE(request.operation, Operation::Refine);
                // follow=latest: the previous turn's candidate of the same trajectory
                const QList<qint64> trajectory = strategy.trajectory(t);
                QCOMPARE(request.parents, QList<qint64>{trajectory[turn - 1]});
            }
        }
        for (int t = 0; t < 3; ++t)
            QCOMPARE(strategy.trajectory(t).size(), 4);
    }

    void followBest_data()
    {
        QTest::addColumn<QString>("follow");
        QTest::addColumn<qint64>("expectedParent");
        QTest::newRow("latest") << QStringLiteral("latest") << qint64(3);
        QTest::newRow("best") << QStringLiteral("best") << qint64(2);
    }
    void followBest()
    {
        QFETCH(QString, follow);
        QFETCH(qint64, expectedParent);
        RefineStrategy strategy;
        strategy.configure({{QStringLiteral("width"), 1},
                            {QStringLiteral("turns"), 5},
                            {QStringLiteral("follow"), follow}},
                           1);
        strategy.ask(4);
        strategy.tell({result(1, 1.0)});
        strategy.ask(4);
        strategy.tell({result(2, 3.0)});
        strategy.ask(4);
        strategy.tell({result(3, 0.0, false)}); // the latest failed: best is still node 2
        const QList<ExpansionRequest> next = strategy.ask(4);
        QCOMPARE(next.size(), 1);
        QCOMPARE(next[0].parents, QList<qint64>{expectedParent});
    }

    void truncatedRoundsKeepTurns()
    {
        RefineStrategy strategy;
        strategy.configure({{QStringLiteral("width"), 3}, {QStringLiteral("turns"), 3}}, 2);
        FakeWorld world;
        const RunLog log = drive(strategy, world, 7, 2);
        QList<int> sizes;
        for (const auto &round : log.rounds)
            sizes.append(int(round.size()));
        // Each round of three trajectories takes two asks of at most 2; the budget cuts at 7.
        QCOMPARE(sizes, (QList<int>{2, 1, 2, 1, 1}));
        QVERIFY(!log.overAsked);
        QCOMPARE(strategy.trajectory(0).size() + strategy.trajectory(1).size() +
                     strategy.trajectory(2).size(),
                 7);
    }

    void noCodeRestartsWithSample()
    {
        RefineStrategy strategy;
        strategy.configure({{QStringLiteral("width"), 1}, {QStringLiteral("turns"), 3}}, 1);
        strategy.ask(1);
        strategy.tell({result(1, 0.0, false, false)});
        const QList<ExpansionRequest> next = strategy.ask(1);
        QCOMPARE(next.size(), 1);
        QCOMPARE(next[0].operation, Operation::Sample);
        QCOMPARE(next[0].generation, 1);
    }

    void lostResultsAreRetried()
    {
        RefineStrategy strategy;
        strategy.configure({{QStringLiteral("width"), 3}, {QStringLiteral("turns"), 2}}, 1);
        QCOMPARE(strategy.ask(3).size(), 3);
        // Trajectory 1's result has no id (nothing stored) and trajectory 2's never came back.
        strategy.tell({result(1, 1.0), result(0, 0.0, false, false)});
        QCOMPARE(strategy.trajectory(0), QList<qint64>{1});
        QVERIFY(strategy.trajectory(1).isEmpty());
        QVERIFY(strategy.trajectory(2).isEmpty());
        const QList<ExpansionRequest> next = strategy.ask(3);
        QCOMPARE(next.size(), 3);
        QCOMPARE(next[0].operation, Operation::Refine);
        QCOMPARE(next[1].operation, Operation::Sample);
        QCOMPARE(next[1].island, 1);
        QCOMPARE(next[2].operation, Operation::Sample);
        QCOMPARE(next[2].generation, 0);
    }

    void deterministic()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            RefineStrategy strategy;
            strategy.configure({{QStringLiteral("follow"), QStringLiteral("best")}}, 9);
            FakeWorld world(3);
            log = drive(strategy, world, 30, 3);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
    }
};

QTEST_GUILESS_MAIN(TestRefineStrategy)
#include "tst_refinestrategy.moc"
