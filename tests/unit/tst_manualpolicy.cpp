#include "policies/manualpolicy.h"

#include <QtTest>

using namespace kiln;

class TestManualPolicy : public QObject
{
    Q_OBJECT

private slots:
    void makeChild();
    void queueInOrder();
    void submissionFollowsRequestedParent();
    void emptyQueueAndEmptySource();
};

void TestManualPolicy::makeChild()
{
    CandidateRecord parent;
    parent.id = 42;
    parent.runId = 3;
    parent.task = QStringLiteral("softmax");
    parent.generation = 4;
    parent.island = 2;
    const CandidateRecord child =
        ManualPolicy::makeChild(parent, QStringLiteral("// mine"), QStringLiteral("beat it"));
    QCOMPARE(child.operation, Operation::Manual);
    QCOMPARE(child.policy, QStringLiteral("manual"));
    QCOMPARE(child.parent, std::optional<qint64>(42));
    QVERIFY(!child.secondParent);
    QCOMPARE(child.runId, 3);
    QCOMPARE(child.task, QStringLiteral("softmax"));
    QCOMPARE(child.generation, 5);
    QCOMPARE(child.island, 2);
    QCOMPARE(child.source, QStringLiteral("// mine"));
    QCOMPARE(child.policyMeta.value(QStringLiteral("note")).toString(), QStringLiteral("beat it"));
    QCOMPARE(child.id, 0);

    const CandidateRecord root =
        ManualPolicy::makeRoot(3, QStringLiteral("softmax"), QStringLiteral("// r"));
    QCOMPARE(root.operation, Operation::Manual);
    QVERIFY(!root.parent);
}

void TestManualPolicy::queueInOrder()
{
    ManualPolicy policy;
    policy.submit(QStringLiteral("// one"), 7);
    policy.submit(QStringLiteral("// two"));
    QCOMPARE(policy.pending(), 2);
    std::atomic<bool> cancel{false};
    GenerationRequest request;
    request.generation = 1;
    const GenerationResult first = policy.generate(request, cancel);
    QVERIFY(first.ok);
    QCOMPARE(first.candidate.source, QStringLiteral("// one"));
    QCOMPARE(first.candidate.parent, std::optional<qint64>(7));
    QCOMPARE(first.candidate.operation, Operation::Manual);
    const GenerationResult second = policy.generate(request, cancel);
    QCOMPARE(second.candidate.source, QStringLiteral("// two"));
    QVERIFY(!second.candidate.parent);
    QCOMPARE(policy.pending(), 0);
}

void TestManualPolicy::submissionFollowsRequestedParent()
{
    ManualPolicy policy;
    policy.submit(QStringLiteral("// child"));
    CandidateRecord parent;
    parent.id = 9;
    parent.task = QStringLiteral("matmul");
    parent.generation = 2;
    GenerationRequest request;
    request.parents = {parent};
    std::atomic<bool> cancel{false};
    const GenerationResult r = policy.generate(request, cancel);
    QVERIFY(r.ok);
    QCOMPARE(r.candidate.parent, std::optional<qint64>(9));
    QCOMPARE(r.candidate.generation, 3);
    QCOMPARE(r.candidate.task, QStringLiteral("matmul"));
}

void TestManualPolicy::emptyQueueAndEmptySource()
{
    ManualPolicy policy;
    std::atomic<bool> cancel{false};
    GenerationResult r = policy.generate({}, cancel);
    QVERIFY(!r.ok);
    QCOMPARE(r.error, QStringLiteral("no manual candidate queued"));
    policy.submit(QStringLiteral("   \n"));
    r = policy.generate({}, cancel);
    QVERIFY(!r.ok);
    QVERIFY(r.error.startsWith(QStringLiteral("no code")));
    policy.submit(QStringLiteral("// x"));
    cancel = true;
    QCOMPARE(policy.generate({}, cancel).error, QStringLiteral("cancelled"));
    QCOMPARE(policy.pending(), 1); // a cancelled call leaves the queue alone
}

QTEST_GUILESS_MAIN(TestManualPolicy)
#include "tst_manualpolicy.moc"
