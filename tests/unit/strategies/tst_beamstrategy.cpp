#include "beamstrategy.h"
#include "fakeworld.h"

#include <QSet>
#include <QTest>

using namespace kiln;
using namespace kiln::test;

namespace {

QList<qint64> parentsOf(const QList<ExpansionRequest> &requests)
{
    QList<qint64> parents;
    for (const ExpansionRequest &r : requests) {
        if (r.operation != Operation::Refine || r.parents.size() != 1)
            return {};
        parents.append(r.parents[0]);
    }
    return parents;
}

} // namespace

class TestBeamStrategy : public QObject
{
    Q_OBJECT

private slots:
    void keepsTopBAndAsksKChildren()
    {
        BeamStrategy strategy;
        strategy.configure({{QStringLiteral("beams"), 2}, {QStringLiteral("children"), 3}}, 1);
        const QList<ExpansionRequest> round0 = strategy.ask(100);
        QCOMPARE(round0.size(), 6); // initial 0: beams x children samples
        for (const ExpansionRequest &r : round0)
            QCOMPARE(r.operation, Operation::Sample);
        strategy.tell({result(1, 1.0), result(2, 2.0), result(3, 0.5), result(4, 9.0, false),
                       result(5, 1.5), result(6, 0.0, false, false)});
        QCOMPARE(strategy.beam(), (QList<qint64>{2, 5}));

        const QList<ExpansionRequest> round1 = strategy.ask(100);
        QCOMPARE(parentsOf(round1), (QList<qint64>{2, 5, 2, 5, 2, 5}));
        for (const ExpansionRequest &r : round1)
            QCOMPARE(r.generation, 1);
        // Children alternate 2, 5, 2, ...: node 7 (of 2) beats everything, 8 (of 5) beats 5;
        // the top two of parents and children are {7, 2}, so 5 is dropped.
        strategy.tell({result(7, 3.0), result(8, 1.6), result(9, 1.0), result(10, 0.2),
                       result(11, 0.1), result(12, 0.0, false)});
        QCOMPARE(strategy.beam(), (QList<qint64>{7, 2}));
        QCOMPARE(strategy.evicted(), QList<qint64>{5});
        QCOMPARE(parentsOf(strategy.ask(100)), (QList<qint64>{7, 2, 7, 2, 7, 2}));
    }

    void withoutParentsOnlyChildrenCompete()
    {
        BeamStrategy strategy;
        strategy.configure({{QStringLiteral("beams"), 1},
                            {QStringLiteral("children"), 2},
                            {QStringLiteral("initial"), 2},
                            {QStringLiteral("keep_parents"), false}},
                           1);
        strategy.ask(10);
        strategy.tell({result(1, 5.0), result(2, 1.0)});
        QCOMPARE(parentsOf(strategy.ask(10)), (QList<qint64>{1, 1}));
        strategy.tell({result(3, 2.0), result(4, 1.0)});
        QCOMPARE(strategy.beam(), QList<qint64>{3});
        QCOMPARE(strategy.evicted(), QList<qint64>{1});
    }

    void failuresAreRefinableWhenNothingPasses()
    {
        BeamStrategy strategy;
        strategy.configure({{QStringLiteral("beams"), 2}, {QStringLiteral("children"), 1}}, 1);
        strategy.ask(10);
        NodeResult compileError = result(1, 0.0, false);
        compileError.verdict = Verdict::CompileError;
        strategy.tell({compileError, result(2, 0.0, false, false)});
        // A compile error still has code to refine; a node without code never enters.
        QCOMPARE(strategy.beam(), QList<qint64>{1});
        QCOMPARE(parentsOf(strategy.ask(10)), QList<qint64>{1});
        // A success ranks above any failure.
        strategy.tell({result(3, 0.1)});
        QCOMPARE(strategy.beam(), (QList<qint64>{3, 1}));
    }

    void truncatedRoundFinishesBeforeNext()
    {
        BeamStrategy strategy;
        strategy.configure({{QStringLiteral("beams"), 2}, {QStringLiteral("children"), 3}}, 1);
        FakeWorld world;
        QCOMPARE(strategy.ask(4).size(), 4);
        strategy.tell(world.evaluate(QList<ExpansionRequest>(4, ExpansionRequest{})));
        QCOMPARE(strategy.round(), 0);
        const QList<ExpansionRequest> rest = strategy.ask(4);
        QCOMPARE(rest.size(), 2); // the remainder of round 0, not round 1 yet
        QCOMPARE(rest[0].operation, Operation::Sample);
        strategy.tell(world.evaluate(rest));
        QCOMPARE(strategy.round(), 1);
        QCOMPARE(strategy.ask(4).size(), 4);
    }

    void evictedAreFormerBeamMembers()
    {
        BeamStrategy strategy;
        strategy.configure({{QStringLiteral("beams"), 3}, {QStringLiteral("children"), 2}}, 4);
        FakeWorld world(11);
        QSet<qint64> everInBeam;
        for (int round = 0; round < 12; ++round) {
            const QList<ExpansionRequest> requests = strategy.ask(5);
            strategy.tell(world.evaluate(requests));
            const QList<qint64> beam = strategy.beam();
            for (qint64 id : beam)
                everInBeam.insert(id);
            for (qint64 id : strategy.evicted()) {
                QVERIFY(everInBeam.contains(id));
                QVERIFY(!beam.contains(id));
            }
        }
        QVERIFY(!strategy.evicted().isEmpty());
    }

    void deterministic()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            BeamStrategy strategy;
            strategy.configure({}, 3);
            FakeWorld world(5);
            log = drive(strategy, world, 50, 3);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
    }
};

QTEST_GUILESS_MAIN(TestBeamStrategy)
#include "tst_beamstrategy.moc"
