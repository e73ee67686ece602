#include "policies/replaypolicy.h"

#include <QtTest>

#include <thread>

using namespace kiln;

namespace {

CandidateRecord recorded(qint64 id, Operation op, std::optional<qint64> parent,
                         std::optional<qint64> second = std::nullopt, const QString &source = {})
{
    CandidateRecord c;
    c.id = id;
    c.runId = 5;
    c.task = QStringLiteral("vector_add");
    c.operation = op;
    c.parent = parent;
    c.secondParent = second;
    c.policy = QStringLiteral("llm");
    c.source = source.isNull() ? QStringLiteral("// source %1\n").arg(id) : source;
    c.prompt = QStringLiteral("prompt %1").arg(id);
    c.response = QStringLiteral("response %1").arg(id);
    c.reasoning = QStringLiteral("reasoning %1").arg(id);
    c.promptTokens = 100 + id;
    c.completionTokens = 200 + id;
    c.reasoningTokens = 300 + id;
    c.reasoningLength = 4096;
    c.generation = parent ? 1 : 0;
    c.policyMeta =
        QJsonObject{{QStringLiteral("model"), QStringLiteral("m")}, {QStringLiteral("cost"), 0.5}};
    return c;
}

} // namespace

class TestReplayPolicy : public QObject
{
    Q_OBJECT

private slots:
    void replaysInOrderWithParentMapping();
    void recordedFailureIsReplayedAsFailure();
    void exhausted();
    void concurrentCallsTakeEachRecordOnce();
};

void TestReplayPolicy::replaysInOrderWithParentMapping()
{
    ReplayPolicy policy({recorded(10, Operation::Sample, {}), recorded(11, Operation::Sample, {}),
                         recorded(12, Operation::Refine, 10),
                         recorded(13, Operation::Crossover, 12, 11)},
                        5);
    QCOMPARE(policy.name(), QStringLiteral("replay"));
    QCOMPARE(policy.size(), 4);
    std::atomic<bool> cancel{false};
    GenerationRequest request;
    qint64 nextNewId = 100;
    QList<qint64> replayOf;
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(policy.peekNext()->id, 10 + i);
        GenerationResult r = policy.generate(request, cancel);
        QVERIFY2(r.ok, qPrintable(r.error));
        CandidateRecord &c = r.candidate;
        QCOMPARE(c.id, 0);
        QCOMPARE(c.policy, QStringLiteral("replay"));
        QCOMPARE(c.source, QStringLiteral("// source %1\n").arg(10 + i));
        QCOMPARE(c.prompt, QStringLiteral("prompt %1").arg(10 + i));
        QCOMPARE(c.response, QStringLiteral("response %1").arg(10 + i));
        QCOMPARE(c.reasoning, QStringLiteral("reasoning %1").arg(10 + i));
        QCOMPARE(c.reasoningTokens, 310 + i);
        QCOMPARE(c.policyMeta.value(QStringLiteral("replay_policy")).toString(),
                 QStringLiteral("llm"));
        QCOMPARE(c.policyMeta.value(QStringLiteral("replay_run")).toInteger(), 5);
        QCOMPARE(c.policyMeta.value(QStringLiteral("model")).toString(), QStringLiteral("m"));
        QCOMPARE(c.policyMeta.value(QStringLiteral("cost_paid")).toDouble(), 0.0);
        replayOf << c.policyMeta.value(QStringLiteral("replay_of")).toInteger();
        // The engine stores it and tells the policy its new id.
        c.id = nextNewId++;
        policy.noteStored(c);
        if (i == 2) {
            QCOMPARE(c.operation, Operation::Refine);
            QCOMPARE(c.parent, std::optional<qint64>(100)); // 10 became 100
            QCOMPARE(c.policyMeta.value(QStringLiteral("replay_parent")).toInteger(), 10);
        }
        if (i == 3) {
            QCOMPARE(c.operation, Operation::Crossover);
            QCOMPARE(c.parent, std::optional<qint64>(102));
            QCOMPARE(c.secondParent, std::optional<qint64>(101));
        }
    }
    QCOMPARE(replayOf, (QList<qint64>{10, 11, 12, 13}));
    QCOMPARE(policy.remaining(), 0);
    QCOMPARE(policy.mappedId(13), std::optional<qint64>(103));
}

void TestReplayPolicy::recordedFailureIsReplayedAsFailure()
{
    CandidateRecord failed = recorded(20, Operation::Sample, {}, {}, QString(QLatin1String("")));
    failed.policyMeta.insert(QStringLiteral("error"),
                             QStringLiteral("no code: the answer is empty"));
    ReplayPolicy policy({failed});
    std::atomic<bool> cancel{false};
    const GenerationResult r = policy.generate({}, cancel);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.startsWith(QStringLiteral("no code")), qPrintable(r.error));
    QCOMPARE(r.candidate.response, QStringLiteral("response 20"));
}

void TestReplayPolicy::exhausted()
{
    ReplayPolicy policy({recorded(1, Operation::Sample, {})});
    std::atomic<bool> cancel{false};
    QVERIFY(policy.generate({}, cancel).ok);
    QVERIFY(!policy.peekNext());
    const GenerationResult r = policy.generate({}, cancel);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.startsWith(QStringLiteral("replay exhausted")), qPrintable(r.error));
    ReplayPolicy empty({});
    QVERIFY(empty.generate({}, cancel).error.startsWith(QStringLiteral("replay exhausted")));
}

void TestReplayPolicy::concurrentCallsTakeEachRecordOnce()
{
    QList<CandidateRecord> records;
    for (int i = 1; i <= 200; ++i)
        records << recorded(i, Operation::Sample, {});
    ReplayPolicy policy(records);
    std::atomic<bool> cancel{false};
    std::mutex mutex;
    QList<qint64> seen;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            while (true) {
                const GenerationResult r = policy.generate({}, cancel);
                if (!r.ok)
                    return;
                std::lock_guard lock(mutex);
                seen << r.candidate.policyMeta.value(QStringLiteral("replay_of")).toInteger();
            }
        });
    for (std::thread &t : threads)
        t.join();
    std::sort(seen.begin(), seen.end());
    QCOMPARE(seen.size(), 200);
    for (int i = 0; i < 200; ++i)
        QCOMPARE(seen.at(i), i + 1);
}

QTEST_GUILESS_MAIN(TestReplayPolicy)
#include "tst_replaypolicy.moc"
