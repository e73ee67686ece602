#include "fakeworld.h"
#include "strategyregistry.h"

#include <QTest>

using namespace kiln;
using namespace kiln::test;

class TestStrategyRegistry : public QObject
{
    Q_OBJECT

private slots:
    void listsTheBuiltins()
    {
        QCOMPARE(StrategyRegistry::names(),
                 (QStringList{QStringLiteral("best-of-n"), QStringLiteral("refine"),
                              QStringLiteral("beam"), QStringLiteral("greedy"),
                              QStringLiteral("mcts"), QStringLiteral("evolve"),
                              QStringLiteral("two-phase"), QStringLiteral("agents")}));
        QVERIFY(!StrategyRegistry::contains(QStringLiteral("annealing")));
        QVERIFY(!StrategyRegistry::create(QStringLiteral("annealing")));
    }

    void createsEach_data()
    {
        QTest::addColumn<QString>("name");
        const QStringList names = StrategyRegistry::names();
        for (const QString &name : names)
            QTest::newRow(qPrintable(name)) << name;
    }
    void createsEach()
    {
        QFETCH(QString, name);
        const std::unique_ptr<Strategy> strategy = StrategyRegistry::create(name);
        QVERIFY(strategy);
        QCOMPARE(strategy->name(), name);
        QVERIFY(!StrategyRegistry::description(name).isEmpty());

        // Every declared default is valid and every strategy has reasoning_length.
        const QList<StrategyParameter> parameters = StrategyRegistry::parameters(name);
        QVariantMap defaults;
        bool hasReasoning = false;
        for (const StrategyParameter &p : parameters) {
            QVERIFY2(!p.description.isEmpty(), qPrintable(p.name));
            defaults.insert(p.name, p.defaultValue);
            hasReasoning = hasReasoning || p.name == QLatin1String("reasoning_length");
        }
        QVERIFY(hasReasoning);
        QCOMPARE(StrategyRegistry::validate(name, defaults), QString());

        // reasoning_length reaches every request; asks never exceed what is allowed; the same
        // seed and results give the same requests.
        RunLog logs[2];
        for (RunLog &log : logs) {
            const std::unique_ptr<Strategy> s = StrategyRegistry::create(name);
            s->configure({{QStringLiteral("reasoning_length"), 777}}, 42);
            FakeWorld world(42);
            log = drive(*s, world, 37, 4);
        }
        QVERIFY(!logs[0].overAsked);
        QVERIFY(logs[0].requests > 0);
        QVERIFY(sameRequests(logs[0].rounds, logs[1].rounds));
        for (const auto &round : logs[0].rounds) {
            for (const ExpansionRequest &r : round)
                QCOMPARE(r.reasoningLength, qint64(777));
        }
    }

    void validates_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QVariantMap>("values");
        QTest::addColumn<bool>("ignoreUnknown");
        QTest::addColumn<QString>("errorContains"); // empty: valid
        const QString ok;
        QTest::newRow("string number")
            << QStringLiteral("beam") << QVariantMap{{QStringLiteral("beams"), QStringLiteral("4")}}
            << false << ok;
        QTest::newRow("below minimum")
            << QStringLiteral("beam") << QVariantMap{{QStringLiteral("beams"), 0}} << false
            << QStringLiteral("at least 1");
        QTest::newRow("above maximum")
            << QStringLiteral("evolve") << QVariantMap{{QStringLiteral("mutate_rate"), 1.5}}
            << false << QStringLiteral("at most 1");
        QTest::newRow("not a number")
            << QStringLiteral("mcts")
            << QVariantMap{{QStringLiteral("exploration"), QStringLiteral("lots")}} << false
            << QStringLiteral("exploration");
        QTest::newRow("fraction for an integer")
            << QStringLiteral("best-of-n") << QVariantMap{{QStringLiteral("n"), 2.5}} << false
            << QStringLiteral("integer");
        QTest::newRow("bad choice")
            << QStringLiteral("refine")
            << QVariantMap{{QStringLiteral("follow"), QStringLiteral("worst")}} << false
            << QStringLiteral("latest|best");
        QTest::newRow("good choice")
            << QStringLiteral("two-phase")
            << QVariantMap{{QStringLiteral("tree"), QStringLiteral("mcts")}} << false << ok;
        QTest::newRow("bool") << QStringLiteral("beam")
                              << QVariantMap{{QStringLiteral("keep_parents"),
                                              QStringLiteral("maybe")}}
                              << false << QStringLiteral("true or false");
        QTest::newRow("unknown key")
            << QStringLiteral("greedy") << QVariantMap{{QStringLiteral("temperature"), 1}} << false
            << QStringLiteral("unknown parameter 'temperature'");
        QTest::newRow("unknown key ignored")
            << QStringLiteral("greedy") << QVariantMap{{QStringLiteral("temperature"), 1}} << true
            << ok;
        QTest::newRow("negative reasoning")
            << QStringLiteral("greedy") << QVariantMap{{QStringLiteral("reasoning_length"), -1}}
            << false << QStringLiteral("reasoning_length");
        QTest::newRow("unknown strategy") << QStringLiteral("annealing") << QVariantMap() << false
                                          << QStringLiteral("unknown strategy");
    }
    void validates()
    {
        QFETCH(QString, name);
        QFETCH(QVariantMap, values);
        QFETCH(bool, ignoreUnknown);
        QFETCH(QString, errorContains);
        const QString error = StrategyRegistry::validate(name, values, ignoreUnknown);
        if (errorContains.isEmpty())
            QCOMPARE(error, QString());
        else
            QVERIFY2(error.contains(errorContains), qPrintable(error));
    }

    void loadsDynamicPlugins()
    {
        StrategyRegistry::setPluginDirectories({QStringLiteral(KILN_TEST_STRATEGY_PLUGIN_DIR)});
        const QStringList names = StrategyRegistry::names();
        QCOMPARE(names.size(), 9);
        QCOMPARE(names.last(), QStringLiteral("dummy")); // after the built-ins
        const std::unique_ptr<Strategy> dummy = StrategyRegistry::create(QStringLiteral("dummy"));
        QVERIFY(dummy);
        QCOMPARE(dummy->ask(5).size(), 2);
        QCOMPARE(StrategyRegistry::description(QStringLiteral("dummy")),
                 QStringLiteral("Test-only strategy loaded from a plugin directory."));
        QVERIFY(!StrategyRegistry::validate(QStringLiteral("dummy"), {{QStringLiteral("width"), 9}})
                     .isEmpty());
        StrategyRegistry::setPluginDirectories({});
        QCOMPARE(StrategyRegistry::names().size(), 8);
    }

    void missingPluginDirectoryIsHarmless()
    {
        StrategyRegistry::setPluginDirectories({QStringLiteral("/nonexistent/kiln/plugins")});
        QCOMPARE(StrategyRegistry::names().size(), 8);
        StrategyRegistry::setPluginDirectories({});
    }
};

QTEST_GUILESS_MAIN(TestStrategyRegistry)
#include "tst_strategyregistry.moc"
