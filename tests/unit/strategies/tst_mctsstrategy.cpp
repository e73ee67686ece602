#include "fakeworld.h"
#include "mctsstrategy.h"

#include <QTest>
#include <cmath>

using namespace kiln;
using namespace kiln::test;

namespace {

QList<qint64> firstParents(const QList<ExpansionRequest> &requests)
{
    QList<qint64> parents;
    for (const ExpansionRequest &r : requests)
        parents.append(r.parents.value(0, 0));
    return parents;
}

} // namespace

class TestMctsStrategy : public QObject
{
    Q_OBJECT

private slots:
    void uctFormula()
    {
        // Q/N + c sqrt(ln Np / N) = 1.5/3 + 1.4 sqrt(ln 10 / 3)
        QCOMPARE(MctsStrategy::uct(1.5, 3, 10, 1.4), 0.5 + 1.4 * std::sqrt(std::log(10.0) / 3.0));
        QVERIFY(std::abs(MctsStrategy::uct(1.5, 3, 10, 1.4) - 1.726522) < 1e-5);
        QVERIFY(std::isinf(MctsStrategy::uct(0, 0, 10, 1.0)));
    }

    void valueIsSquashedSpeedup()
    {
        MctsStrategy strategy;
        strategy.configure({{QStringLiteral("value_scale"), 2.0}}, 1);
        QCOMPARE(strategy.value(2.0, true), 0.5);
        QCOMPARE(strategy.value(6.0, true), 0.75);
        QCOMPARE(strategy.value(6.0, false), 0.0);
    }

    // Hand-computed: samples A (speedup 3, v .75) and B (speedup 1, v .5); A is refined into a
    // child of speedup 1 (v .5). Then A: Q/N = 1.25/2, B: .5/1, root N = 3.
    //   c = 1: A = .625 + sqrt(ln3/2) = 1.366, B = .5 + sqrt(ln3) = 1.548  -> expand B
    //   c = 0: A = .625 > B = .5; A is full (max_children 1) -> descend to its child, expand it
    void handComputedSelection_data()
    {
        QTest::addColumn<double>("c");
        QTest::addColumn<qint64>("parent");
        QTest::newRow("c=1 explores B") << 1.0 << qint64(2);
        QTest::newRow("c=0 exploits A's child") << 0.0 << qint64(3);
    }
    void handComputedSelection()
    {
        QFETCH(double, c);
        QFETCH(qint64, parent);
        MctsStrategy strategy;
        strategy.configure({{QStringLiteral("exploration"), c},
                            {QStringLiteral("root_children"), 2},
                            {QStringLiteral("max_children"), 1}},
                           1);
        QList<ExpansionRequest> requests = strategy.ask(4);
        // Only the root can expand, twice: the rest of the round waits rather than sampling
        // beyond root_children.
        QCOMPARE(requests.size(), 2);
        QCOMPARE(requests[0].operation, Operation::Sample);
        QCOMPARE(requests[1].operation, Operation::Sample);
        strategy.tell({result(1, 3.0), result(2, 1.0)});
        QCOMPARE(strategy.visits(0), 2);

        requests = strategy.ask(1);
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests[0].operation, Operation::Refine);
        QCOMPARE(requests[0].parents, QList<qint64>{1});
        strategy.tell({result(3, 1.0)});
        QCOMPARE(strategy.visits(1), 2);
        QCOMPARE(strategy.valueSum(1), 1.25);

        requests = strategy.ask(1);
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests[0].parents, QList<qint64>{parent});
    }

    void backpropagatesAlongAncestors()
    {
        MctsStrategy strategy;
        strategy.configure(
            {{QStringLiteral("root_children"), 1}, {QStringLiteral("max_children"), 1}}, 1);
        strategy.ask(1);
        strategy.tell({result(1, 1.0)}); // v = .5
        QCOMPARE(strategy.ask(1)[0].parents, QList<qint64>{1});
        strategy.tell({result(2, 3.0)}); // v = .75
        QCOMPARE(strategy.ask(1)[0].parents, QList<qint64>{2});
        strategy.tell({result(3, 0.0, false)}); // failure: v = 0
        QCOMPARE(strategy.visits(0), 3);
        QCOMPARE(strategy.visits(1), 3);
        QCOMPARE(strategy.visits(2), 2);
        QCOMPARE(strategy.visits(3), 1);
        QCOMPARE(strategy.valueSum(0), 1.25);
        QCOMPARE(strategy.valueSum(1), 1.25);
        QCOMPARE(strategy.valueSum(2), 0.75);
        QCOMPARE(strategy.valueSum(3), 0.0);
    }

    // Samples of speedup 3, 1, 1/3 (v .75, .5, .25), c = sqrt 2, three children allowed each.
    // Without virtual loss every request of the round goes to the best; with it, after A is
    // chosen its Q/N halves (N 1 -> 2) and B wins; after B, C wins.
    void virtualLossSpreadsARound_data()
    {
        QTest::addColumn<int>("virtualLoss");
        QTest::addColumn<QList<qint64>>("parents");
        QTest::newRow("off") << 0 << QList<qint64>{1, 1, 1};
        QTest::newRow("on") << 1 << QList<qint64>{1, 2, 3};
    }
    void virtualLossSpreadsARound()
    {
        QFETCH(int, virtualLoss);
        QFETCH(QList<qint64>, parents);
        MctsStrategy strategy;
        strategy.configure({{QStringLiteral("root_children"), 3},
                            {QStringLiteral("max_children"), 3},
                            {QStringLiteral("virtual_loss"), virtualLoss}},
                           1);
        QCOMPARE(strategy.ask(3).size(), 3);
        strategy.tell({result(1, 3.0), result(2, 1.0), result(3, 1.0 / 3.0)});
        QCOMPARE(firstParents(strategy.ask(3)), parents);
    }

    void visitsConcentrateOnTheBetterSubtree()
    {
        MctsStrategy strategy;
        strategy.configure(
            {{QStringLiteral("root_children"), 4}, {QStringLiteral("max_children"), 2}}, 1);
        FakeWorld world(2);
        world.failureRate = 0.0;
        world.noCodeRate = 0.0;
        world.gain = 0.05;
        // Even samples are fast, odd ones slow; refinement keeps a subtree's level.
        world.sampleQuality = [](int index) { return index % 2 == 0 ? 3.0 : 0.3; };
        drive(strategy, world, 120, 4);
        const QList<qint64> roots = strategy.treeChildren(0);
        QCOMPARE(roots.size(), 4);
        int good = 0;
        int bad = 0;
        for (qint64 id : roots)
            (world.quality(id) > 1.0 ? good : bad) += strategy.visits(id);
        for (qint64 g : roots) {
            for (qint64 b : roots) {
                if (world.quality(g) > 1.0 && world.quality(b) < 1.0)
                    QVERIFY2(strategy.visits(g) > strategy.visits(b),
                             qPrintable(QStringLiteral("%1 vs %2")
                                            .arg(strategy.visits(g))
                                            .arg(strategy.visits(b))));
            }
        }
        QVERIFY2(good >= 2 * bad, qPrintable(QStringLiteral("good %1 bad %2").arg(good).arg(bad)));
    }

    void mutateExpansion()
    {
        MctsStrategy strategy;
        strategy.configure({{QStringLiteral("root_children"), 1},
                            {QStringLiteral("expansion"), QStringLiteral("mutate")}},
                           1);
        strategy.ask(1);
        strategy.tell({result(1, 1.0)});
        QCOMPARE(strategy.ask(1)[0].operation, Operation::Mutate);
    }

    void deterministicAndNeverOverAsks()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            MctsStrategy strategy;
            strategy.configure({{QStringLiteral("widening"), 0.5}}, 3);
            FakeWorld world(5);
            log = drive(strategy, world, 60, 5);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
        QVERIFY(!logs[0].overAsked);
        QCOMPARE(logs[0].requests, 60);
    }
};

QTEST_GUILESS_MAIN(TestMctsStrategy)
#include "tst_mctsstrategy.moc"
