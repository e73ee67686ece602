#include "evolvestrategy.h"
#include "fakeworld.h"

#include <QSet>
#include <QTest>
#include <cmath>

using namespace kiln;
using namespace kiln::test;

namespace {

QSet<qint64> members(const EvolveStrategy &s, int islands)
{
    QSet<qint64> all;
    for (int i = 0; i < islands; ++i) {
        const QList<qint64> population = s.population(i);
        for (qint64 id : population)
            all.insert(id);
    }
    const QMap<QString, qint64> archive = s.archive();
    for (qint64 id : archive)
        all.insert(id);
    return all;
}

// Asks and tells until the strategy's generation counter moves on.
void runGeneration(EvolveStrategy &s, FakeWorld &world, int parallelism)
{
    const int generation = s.generation();
    while (s.generation() == generation) {
        const QList<ExpansionRequest> requests = s.ask(parallelism);
        QVERIFY(!requests.isEmpty());
        QVERIFY(requests.size() <= parallelism);
        s.tell(world.evaluate(requests));
    }
}

} // namespace

class TestEvolveStrategy : public QObject
{
    Q_OBJECT

private slots:
    void seedsIslandsThenBreeds()
    {
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("islands"), 2}, {QStringLiteral("population"), 3}}, 1);
        const QList<ExpansionRequest> first = strategy.ask(100);
        QCOMPARE(first.size(), 6);
        for (int i = 0; i < first.size(); ++i) {
            QCOMPARE(first[i].operation, Operation::Sample);
            QCOMPARE(first[i].island, i % 2);
            QCOMPARE(first[i].generation, 0);
        }
        FakeWorld world;
        world.noCodeRate = 0.0;
        strategy.tell(world.evaluate(first));
        QCOMPARE(strategy.generation(), 1);

        const QList<ExpansionRequest> second = strategy.ask(100);
        QCOMPARE(second.size(), 6);
        const QList<qint64> elites = strategy.archive().values();
        for (int i = 0; i < second.size(); ++i) {
            const ExpansionRequest &r = second[i];
            QCOMPARE(r.island, i % 2);
            QCOMPARE(r.generation, 1);
            QVERIFY(r.operation == Operation::Mutate || r.operation == Operation::Crossover ||
                    r.operation == Operation::Refine);
            for (qint64 parent : r.parents)
                QVERIFY(strategy.population(r.island).contains(parent) || elites.contains(parent));
        }
    }

    void crossoverHasTwoDistinctParents()
    {
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("islands"), 2},
                            {QStringLiteral("population"), 4},
                            {QStringLiteral("mutate_rate"), 0.0},
                            {QStringLiteral("refine_rate"), 0.0},
                            {QStringLiteral("crossover_rate"), 1.0}},
                           3);
        FakeWorld world(2);
        world.noCodeRate = 0.0;
        const RunLog log = drive(strategy, world, 80, 8);
        int crossovers = 0;
        for (const auto &round : log.rounds) {
            for (const ExpansionRequest &r : round) {
                if (r.generation == 0)
                    continue;
                QCOMPARE(r.operation, Operation::Crossover);
                QCOMPARE(r.parents.size(), 2);
                QVERIFY(r.parents[0] != r.parents[1]);
                ++crossovers;
            }
        }
        QCOMPARE(crossovers, 72);
    }

    void migratesAlongTheRing_data()
    {
        QTest::addColumn<int>("interval");
        QTest::newRow("every generation") << 1;
        QTest::newRow("every 2") << 2;
        QTest::newRow("every 3") << 3;
    }
    void migratesAlongTheRing()
    {
        QFETCH(int, interval);
        const int islands = 3;
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("islands"), islands},
                            {QStringLiteral("population"), 4},
                            {QStringLiteral("migration_interval"), interval},
                            {QStringLiteral("migrants"), 1},
                            {QStringLiteral("archive_rate"), 0.0}},
                           5);
        FakeWorld world(7);
        world.noCodeRate = 0.0;
        int seen = 0;
        QSet<int> migrationGenerations;
        for (int g = 0; g < 7; ++g) {
            const int completed = strategy.generation();
            runGeneration(strategy, world, 5);
            const QList<EvolveStrategy::Migration> migrations = strategy.migrations();
            for (int i = seen; i < migrations.size(); ++i) {
                const EvolveStrategy::Migration &m = migrations[i];
                QCOMPARE(m.generation, completed);
                QCOMPARE(m.to, (m.from + 1) % islands);
                QVERIFY(strategy.population(m.to).contains(m.id));   // entered the target
                QVERIFY(strategy.population(m.from).contains(m.id)); // a copy, not a move
                migrationGenerations.insert(m.generation);
            }
            seen = int(migrations.size());
        }
        for (int g : std::as_const(migrationGenerations))
            QVERIFY2(g > 0 && g % interval == 0, qPrintable(QString::number(g)));
        QVERIFY(migrationGenerations.contains(interval)); // the first one is on time
    }

    void noMigrationWhenOff()
    {
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("migration_interval"), 0}}, 5);
        FakeWorld world(7);
        drive(strategy, world, 200, 8);
        QVERIFY(strategy.migrations().isEmpty());
    }

    void archiveKeepsBestPerCell_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("categorical") << QStringLiteral("knob");
        QTest::newRow("numeric bins") << QStringLiteral("size:4:0:100");
        QTest::newRow("two axes") << QStringLiteral("knob,size:2:0:100");
    }
    void archiveKeepsBestPerCell()
    {
        QFETCH(QString, spec);
        EvolveStrategy strategy;
        strategy.configure(
            {{QStringLiteral("descriptors"), spec}, {QStringLiteral("archive_rate"), 0.3}}, 8);
        FakeWorld world(9);
        drive(strategy, world, 150, 6);

        // Recompute the elites by brute force over every result.
        QMap<QString, qint64> expected;
        const QList<qint64> ids = strategy.nodes().ids();
        for (qint64 id : ids) {
            const SearchNode &n = strategy.nodes().at(id);
            if (!n.correct)
                continue;
            const QString cell = strategy.grid().cell(n);
            if (!expected.contains(cell) || strategy.nodes().higher(id, expected[cell]))
                expected.insert(cell, id);
        }
        QCOMPARE(strategy.archive(), expected);
        QVERIFY(expected.size() > 1);
        if (spec == QLatin1String("knob")) {
            QCOMPARE(expected.size(), 4);
            QVERIFY(expected.contains(QStringLiteral("knob=2")));
        }
        if (spec.startsWith(QLatin1String("size"))) {
            for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
                const double size =
                    world.all().value(*it).descriptors.value(QStringLiteral("size")).toDouble();
                QCOMPARE(it.key(), QStringLiteral("size=%1").arg(int(size / 25)));
            }
        }
    }

    void archiveParents()
    {
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("descriptors"), QStringLiteral("knob")},
                            {QStringLiteral("archive_rate"), 1.0}},
                           8);
        FakeWorld world(9);
        // Parents are drawn when a generation is queued: check against the archive of then.
        QList<qint64> elites;
        int checked = 0;
        for (int round = 0; round < 30; ++round) {
            const QList<ExpansionRequest> requests = strategy.ask(4);
            for (const ExpansionRequest &r : requests) {
                if (r.generation > 0 && !elites.isEmpty()) {
                    for (qint64 p : r.parents) {
                        QVERIFY(elites.contains(p));
                        ++checked;
                    }
                }
            }
            const int generation = strategy.generation();
            strategy.tell(world.evaluate(requests));
            if (strategy.generation() != generation)
                elites = strategy.archive().values();
        }
        QVERIFY(checked > 50);
    }

    void evictedLeftEveryPool()
    {
        const int islands = 2;
        EvolveStrategy strategy;
        strategy.configure({{QStringLiteral("islands"), islands},
                            {QStringLiteral("population"), 3},
                            {QStringLiteral("migration_interval"), 2}},
                           4);
        FakeWorld world(6);
        QSet<qint64> everMember;
        for (int round = 0; round < 40; ++round) {
            strategy.tell(world.evaluate(strategy.ask(4)));
            const QSet<qint64> now = members(strategy, islands);
            const QList<qint64> evicted = strategy.evicted();
            for (qint64 id : evicted) {
                QVERIFY(!now.contains(id));
                QVERIFY(everMember.contains(id));
            }
            everMember.unite(now);
        }
        QVERIFY(strategy.evicted().size() > 3);
        // Ghosts stay in the lineage: their children still name them.
        QVERIFY(strategy.nodes().contains(strategy.evicted().first()));
    }

    void deterministicAndTruncated()
    {
        RunLog logs[2];
        for (RunLog &log : logs) {
            EvolveStrategy strategy;
            strategy.configure({{QStringLiteral("descriptors"), QStringLiteral("knob")}}, 3);
            FakeWorld world(5);
            log = drive(strategy, world, 101, 7);
        }
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
        QVERIFY(!logs[0].overAsked);
        QCOMPARE(logs[0].requests, 101);

        EvolveStrategy other;
        other.configure({{QStringLiteral("descriptors"), QStringLiteral("knob")}}, 4);
        FakeWorld world(5);
        const RunLog log = drive(other, world, 101, 7);
        QVERIFY(!sameRequests(logs[0].rounds, log.rounds)); // the seed matters
    }
};

QTEST_GUILESS_MAIN(TestEvolveStrategy)
#include "tst_evolvestrategy.moc"
