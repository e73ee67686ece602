#include "fakeworld.h"
#include "mctsstrategy.h"
#include "twophasestrategy.h"

#include <QTest>

using namespace kiln;
using namespace kiln::test;

class TestTwoPhaseStrategy : public QObject
{
    Q_OBJECT

private slots:
    void switchesAfterDrafts_data()
    {
        QTest::addColumn<QString>("tree");
        QTest::newRow("greedy") << QStringLiteral("greedy");
        QTest::newRow("mcts") << QStringLiteral("mcts");
    }
    void switchesAfterDrafts()
    {
        QFETCH(QString, tree);
        TwoPhaseStrategy strategy;
        strategy.configure({{QStringLiteral("drafts"), 5},
                            {QStringLiteral("tree"), tree},
                            {QStringLiteral("reasoning_length"), 2000},
                            {QStringLiteral("draft_reasoning_length"), 500}},
                           1);
        FakeWorld world(3);
        world.noCodeRate = 0.0;
        // Draft phase: 3 + 2 samples (never more than D), then the switch.
        QList<ExpansionRequest> requests = strategy.ask(3);
        QCOMPARE(requests.size(), 3);
        strategy.tell(world.evaluate(requests));
        QVERIFY(!strategy.inTreePhase());
        requests = strategy.ask(3);
        QCOMPARE(requests.size(), 2);
        for (const ExpansionRequest &r : requests) {
            QCOMPARE(r.operation, Operation::Sample);
            QCOMPARE(r.reasoningLength, qint64(500));
        }
        strategy.tell(world.evaluate(requests));
        QVERIFY(strategy.inTreePhase());

        // Tree phase: refinements rooted at the drafts, with the tree's reasoning length.
        qint64 bestDraft = strategy.nodes().bestId();
        QVERIFY(bestDraft >= 1 && bestDraft <= 5);
        for (int round = 0; round < 6; ++round) {
            requests = strategy.ask(3);
            QVERIFY(!requests.isEmpty());
            for (const ExpansionRequest &r : requests) {
                QCOMPARE(r.operation, Operation::Refine);
                QCOMPARE(r.parents.size(), 1);
                QCOMPARE(r.reasoningLength, qint64(2000));
            }
            if (round == 0 && tree == QLatin1String("greedy"))
                QCOMPARE(requests[0].parents, QList<qint64>{bestDraft});
            strategy.tell(world.evaluate(requests));
        }
        if (tree == QLatin1String("mcts")) {
            const auto *mcts = dynamic_cast<const MctsStrategy *>(strategy.tree());
            QVERIFY(mcts);
            QCOMPARE(mcts->treeChildren(0), (QList<qint64>{1, 2, 3, 4, 5}));
            QCOMPARE(mcts->visits(0), strategy.nodes().size());
        }
    }

    void deterministic()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            TwoPhaseStrategy strategy;
            strategy.configure({{QStringLiteral("tree"), QStringLiteral("mcts")}}, 3);
            FakeWorld world(5);
            log = drive(strategy, world, 40, 3);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
        QCOMPARE(logs[0].requests, 40);
    }
};

QTEST_GUILESS_MAIN(TestTwoPhaseStrategy)
#include "tst_twophasestrategy.moc"
