// GrowthTimeline and RunDocument's replay on a run written through the real store, with its
// event log in a known order.
#include "models/growthtimeline.h"
#include "models/rundocument.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

QList<qint64> ids(const QList<CandidateSummary> &rows, bool evaluatedOnly = false)
{
    QList<qint64> out;
    for (const CandidateSummary &c : rows)
        if (!c.placeholder && (!evaluatedOnly || c.evaluated))
            out.append(c.id);
    return out;
}

QList<qint64> ghosts(const QList<CandidateSummary> &rows)
{
    QList<qint64> out;
    for (const CandidateSummary &c : rows)
        if (c.ghost && !c.placeholder)
            out.append(c.id);
    return out;
}

} // namespace

class TestGrowthTimeline : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_path;
    qint64 m_run = 0;
    qint64 m_c[4] = {};

    qint64 add(RunStore &store, std::optional<qint64> parent)
    {
        CandidateRecord c;
        c.runId = m_run;
        c.task = QStringLiteral("softmax");
        c.source = QStringLiteral("// kernel");
        c.parent = parent;
        c.operation = parent ? Operation::Refine : Operation::Sample;
        return store.addCandidate(c);
    }

    void judge(RunStore &store, qint64 id, double speedup)
    {
        EvaluationResult r;
        r.verdict = Verdict::Pass;
        r.correct = true;
        r.speedup = speedup;
        QVERIFY(store.addEvaluation(id, r) > 0);
    }

private slots:
    // Steps: 1 add c1, 2 add c2, 3 judge c1, 4 add c3 (child of c1), 5 evict c2, 6 judge c3,
    // 7 add c4 (never judged). A run_status event in between is no step.
    void initTestCase()
    {
        m_path = m_dir.filePath(QStringLiteral("g.db"));
        auto store = RunStore::open(m_path, RunStore::Mode::ReadWrite);
        QVERIFY(store);
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("evolve");
        QVERIFY(store->createRun(run) > 0);
        m_run = run.id;
        m_c[0] = add(*store, std::nullopt);
        m_c[1] = add(*store, std::nullopt);
        judge(*store, m_c[0], 1.5);
        m_c[2] = add(*store, m_c[0]);
        QVERIFY(store->updateRunStatus(m_run, RunRecord::Status::Running));
        QVERIFY(store->appendEvent(m_run, QStringLiteral("evicted"), std::nullopt,
                                   {{QStringLiteral("ids"), QJsonArray{double(m_c[1])}}}) > 0);
        judge(*store, m_c[2], 2.5);
        m_c[3] = add(*store, m_c[2]);
    }

    void stepsOfTheLog()
    {
        auto store = RunStore::open(m_path, RunStore::Mode::ReadOnly);
        const GrowthTimeline t = GrowthTimeline::read(*store, m_run);
        QCOMPARE(t.count(), 7);
        QCOMPARE(GrowthTimeline::countSteps(*store, m_run), 7);
        QVERIFY(t.rowsAt(0).isEmpty());
        QCOMPARE(ids(t.rowsAt(1)), (QList<qint64>{m_c[0]}));
        QCOMPARE(ids(t.rowsAt(2), true), QList<qint64>());
        QCOMPARE(ids(t.rowsAt(3), true), (QList<qint64>{m_c[0]}));
        QCOMPARE(t.rowsAt(3).first().speedup, 1.5);
        QVERIFY(!t.rowsAt(3)[1].speedup); // c2 is pending
        QCOMPARE(ids(t.rowsAt(4)), (QList<qint64>{m_c[0], m_c[1], m_c[2]}));
        QVERIFY(ghosts(t.rowsAt(4)).isEmpty());
        QCOMPARE(ghosts(t.rowsAt(5)), (QList<qint64>{m_c[1]}));
        QCOMPARE(ids(t.rowsAt(6), true), (QList<qint64>{m_c[0], m_c[2]}));
        QCOMPARE(ids(t.rowsAt(7)), (QList<qint64>{m_c[0], m_c[1], m_c[2], m_c[3]}));
        QCOMPARE(ids(t.rowsAt(99)), ids(t.rowsAt(7)));
        QVERIFY(t.timeAt(1) <= t.timeAt(7));
    }

    void timelineFollowsTheShownRun()
    {
        qint64 other = 0;
        {
            auto store = RunStore::open(m_path, RunStore::Mode::ReadWrite);
            RunRecord run;
            run.tasks = {QStringLiteral("softmax")};
            QVERIFY(store->createRun(run) > 0);
            other = run.id;
            const qint64 keep = m_run;
            m_run = other;
            add(*store, std::nullopt);
            m_run = keep;
        }
        RunDocument document;
        QVERIFY(document.openDatabase(m_path));
        QVERIFY(document.loadRun(m_run));
        QVERIFY(document.setReplayStep(3));
        QVERIFY(document.loadRun(other)); // a replay of the run before is over
        QVERIFY(!document.isReplaying());
        QCOMPARE(document.replaySteps(), 1);
        QCOMPARE(document.growthSteps(), 1);
    }

    void documentReplaysForwardAndBack()
    {
        RunDocument document;
        QVERIFY(document.openDatabase(m_path));
        QVERIFY(document.loadRun(m_run));
        QCOMPARE(document.replaySteps(), 7);
        QSignalSpy appended(&document, &RunDocument::candidatesAppended);
        QSignalSpy reloaded(&document, &RunDocument::runLoaded);
        QVERIFY(document.setReplayStep(2)); // back from the whole run: a reload
        QCOMPARE(reloaded.size(), 1);
        QCOMPARE(ids(document.candidates()), (QList<qint64>{m_c[0], m_c[1]}));
        QVERIFY(document.isReplaying());
        QVERIFY(document.setReplayStep(6)); // forward: rows appended, no reload
        QCOMPARE(reloaded.size(), 1);
        QVERIFY(!appended.isEmpty());
        QCOMPARE(ids(document.candidates(), true), (QList<qint64>{m_c[0], m_c[2]}));
        QCOMPARE(document.at(document.bestRow()).id, m_c[2]);
        // News of the run while replaying waits for the end of the replay.
        RunDelta news;
        news.runId = m_run;
        CandidateSummary extra;
        extra.id = 9999;
        news.candidates.append(extra);
        QCOMPARE(document.applyDelta(news), 0);
        document.endReplay();
        QVERIFY(!document.isReplaying());
        QCOMPARE(ids(document.candidates()), (QList<qint64>{m_c[0], m_c[1], m_c[2], m_c[3]}));
    }
};

QTEST_GUILESS_MAIN(TestGrowthTimeline)
#include "tst_growthtimeline.moc"
