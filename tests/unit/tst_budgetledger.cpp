#include "engine/budget/budgetallocator.h"
#include "engine/budget/budgetledger.h"

#include <QtTest>

using namespace kiln;

class TestBudgetLedger : public QObject
{
    Q_OBJECT

private slots:
    void countBudgetIsNeverOverspent_data()
    {
        QTest::addColumn<int>("budget");
        QTest::addColumn<int>("used");
        QTest::addColumn<int>("inFlight");
        QTest::addColumn<int>("cap");
        QTest::addColumn<int>("startable");
        QTest::newRow("fresh") << 10 << 0 << 0 << 16 << 10;
        QTest::newRow("cap binds") << 100 << 0 << 0 << 16 << 16;
        QTest::newRow("last round truncated") << 10 << 7 << 0 << 16 << 3;
        QTest::newRow("in flight counted") << 10 << 7 << 2 << 16 << 1;
        QTest::newRow("spent") << 10 << 10 << 0 << 16 << 0;
        QTest::newRow("over by in-flight") << 10 << 9 << 4 << 16 << 0;
    }
    void countBudgetIsNeverOverspent()
    {
        QFETCH(int, budget);
        QFETCH(int, used);
        QFETCH(int, inFlight);
        QFETCH(int, cap);
        QFETCH(int, startable);
        BudgetLedger ledger;
        ledger.setLimit(BudgetAxis::Evals, budget);
        BudgetUsage u;
        u.evals = used;
        ledger.setUsed(u);
        QCOMPARE(ledger.startableRequests(inFlight, cap), startable);
    }

    void nonCountBudgetStopsOnceSpent()
    {
        BudgetLedger ledger;
        ledger.setLimit(BudgetAxis::Tokens, 1000);
        BudgetUsage u;
        u.promptTokens = 600;
        ledger.charge(u);
        QCOMPARE(ledger.startableRequests(0, 8), 8);
        QVERIFY(ledger.stopReason().isEmpty());
        u.promptTokens = 0;
        u.reasoningTokens = 400;
        ledger.charge(u);
        QCOMPARE(ledger.startableRequests(0, 8), 0);
        QVERIFY(ledger.stopReason().contains(QLatin1String("tokens")));
    }

    void targetAndPlateau()
    {
        BudgetLedger ledger;
        ledger.setTargetSpeedup(2.0);
        ledger.setPlateauRounds(2);
        ledger.endRound(1.0);
        QVERIFY(ledger.stopReason().isEmpty());
        ledger.endRound(1.0);
        QVERIFY(ledger.stopReason().isEmpty());
        ledger.endRound(1.0);
        QVERIFY(ledger.stopReason().startsWith(QLatin1String("plateau")));
        ledger.endRound(2.5);
        QVERIFY(ledger.stopReason().contains(QLatin1String("target")));
    }

    void evenAllocationSplitsTheBudget()
    {
        BudgetAllocator allocator({QStringLiteral("a"), QStringLiteral("b")}, 20,
                                  BudgetAllocator::Mode::Even);
        QCOMPARE(allocator.target(QStringLiteral("a")), 10.0);
        QCOMPARE(allocator.nextTask(), QStringLiteral("a"));
        // A task with a round in flight is passed over (rounds of several tasks at once).
        QCOMPARE(allocator.nextTask({QStringLiteral("a")}), QStringLiteral("b"));
        QVERIFY(allocator.nextTask({QStringLiteral("a"), QStringLiteral("b")}).isEmpty());
        allocator.record(QStringLiteral("a"), 4, 4, 4, 0, 1.0);
        QCOMPARE(allocator.nextTask(), QStringLiteral("b"));
        allocator.record(QStringLiteral("b"), 10, 10, 0, 0, 0.0);
        QCOMPARE(allocator.nextTask(), QStringLiteral("a"));
        QCOMPARE(allocator.allowance(QStringLiteral("a")), 6.0);
        allocator.record(QStringLiteral("a"), 6, 6, 6, 0, 1.0);
        QVERIFY(allocator.nextTask().isEmpty());
    }

    void adaptiveAllocationFavoursHardTasks()
    {
        const QString easy = QStringLiteral("easy"), hard = QStringLiteral("hard");
        BudgetAllocator allocator({easy, hard}, 100, BudgetAllocator::Mode::Adaptive);
        // Probe: 10 evaluations each (a fifth of an even share).
        allocator.record(easy, 10, 10, 10, 100, 1.5);
        allocator.record(hard, 10, 10, 1, 900, 0.9);
        QVERIFY(allocator.difficulty(hard) > allocator.difficulty(easy));
        QVERIFY(allocator.target(hard) - 10 > 2 * (allocator.target(easy) - 10));
        // The easy task saturates: it stops and hands its share back.
        allocator.record(easy, 5, 5, 5, 50, 1.5);
        allocator.record(easy, 5, 5, 5, 50, 1.5);
        QVERIFY(allocator.isDone(easy));
        QCOMPARE(allocator.nextTask(), hard);
        QCOMPARE(allocator.allowance(hard), 100.0 - 20 - 10);
    }

    // The run diagnosis' signals per task: a stalled task's weight falls, a longer reasoning
    // tier raises it, and a task whose best reaches the ceiling stops.
    void diagnosedAllocationFollowsTheDiagnosis()
    {
        const QString a = QStringLiteral("a"), b = QStringLiteral("b"), c = QStringLiteral("c");
        BudgetAllocator allocator({a, b, c}, 150, BudgetAllocator::Mode::Diagnosed);
        // Probe (10 each): every task passes half its samples, reasoning Easy (< 4,000 tokens
        // per sample) but for c (Hard: 9,000).
        allocator.record(a, 10, 10, 5, 10 * 1000, 1.5, 0.3);
        allocator.record(b, 10, 10, 5, 10 * 1000, 1.5, 0.3);
        allocator.record(c, 10, 10, 5, 10 * 9000, 1.5, 0.3);
        QCOMPARE(allocator.difficulty(a), allocator.difficulty(b));
        QCOMPARE(allocator.difficulty(c), 2.0 * allocator.difficulty(a));
        // a rises again, b does not: after 10 more evaluations without a gain, b has spent half
        // of its 20 since its best rose (past the stagnation rating's 0.35): its weight falls.
        allocator.record(a, 10, 10, 5, 10 * 1000, 1.8, 0.3);
        allocator.record(b, 10, 10, 5, 10 * 1000, 1.5, 0.3);
        QVERIFY(allocator.difficulty(b) < allocator.difficulty(a));
        QCOMPARE(allocator.difficulty(b), 0.6 * (1.0 - 0.75 * (0.5 - 0.35) / 0.35));
        QVERIFY(!allocator.isDone(a));
        // a reaches 85 % of its roofline: nothing much is left to find, its remainder goes.
        allocator.record(a, 5, 5, 2, 5 * 1000, 2.4, 0.85);
        QVERIFY(allocator.isDone(a));
        QCOMPARE(allocator.allowance(a), 0.0);
        // The same history under adaptive keeps a running.
        BudgetAllocator adaptive({a, b, c}, 150, BudgetAllocator::Mode::Adaptive);
        for (const QString &task : {a, b, c})
            adaptive.record(task, 10, 10, 5, 10 * 1000, 1.5, 0.3);
        adaptive.record(a, 5, 5, 2, 5 * 1000, 2.4, 0.85);
        QVERIFY(!adaptive.isDone(a));
        QCOMPARE(BudgetAllocator::modeFromName(QStringLiteral("diagnosed")),
                 BudgetAllocator::Mode::Diagnosed);
        QVERIFY(!BudgetAllocator::modeFromName(QStringLiteral("smart")));
    }

    void aLoneTaskNeverStopsEarly()
    {
        const QString only = QStringLiteral("only");
        BudgetAllocator allocator({only}, 10, BudgetAllocator::Mode::Adaptive);
        for (int round = 0; round < 4; ++round)
            allocator.record(only, 2, 2, 2, 10, 1.5); // easy and flat: no one to give budget to
        QVERIFY(!allocator.isDone(only));
        QCOMPARE(allocator.nextTask(), only);
        QCOMPARE(allocator.allowance(only), 2.0);
    }
};

QTEST_APPLESS_MAIN(TestBudgetLedger)
#include "tst_budgetledger.moc"
