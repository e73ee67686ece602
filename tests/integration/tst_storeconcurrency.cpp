#include "store/runstore.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>

using namespace kiln;

namespace {

constexpr int candidateTotal = 150;
constexpr int stagesPerEvaluation = 3;

EvaluationResult evaluationFor(int i)
{
    EvaluationResult r;
    r.verdict = i % 5 == 0 ? Verdict::Wrong : Verdict::Pass;
    r.correct = i % 5 != 0;
    r.speedup = 1.0 + i / 100.0;
    for (int s = 0; s < stagesPerEvaluation; ++s)
        r.stages.append(StageResult{QStringLiteral("stage%1").arg(s), true, 1.0 + s, {}, {}});
    r.flags.append(CheatFlag{QStringLiteral("note"), QStringLiteral("n"), {i}, false});
    return r;
}

} // namespace

class TestStoreConcurrency : public QObject
{
    Q_OBJECT

private slots:
    void readerSeesOnlyWholeChanges()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("live.kiln"));
        QString error;
        std::unique_ptr<RunStore> writer = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
        QVERIFY2(writer, qPrintable(error));
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        const qint64 runId = writer->createRun(run);
        QVERIFY(runId > 0);

        std::atomic<bool> writerFailed{false};
        std::atomic<bool> writerDone{false};
        QThread *writerThread = QThread::create([&] {
            QList<qint64> ids;
            for (int i = 0; i < candidateTotal && !writerFailed; ++i) {
                CandidateRecord c;
                c.runId = runId;
                c.task = QStringLiteral("softmax");
                c.source = QStringLiteral("void k%1() {}\n").arg(i).repeated(50);
                if (!ids.isEmpty()) {
                    c.operation = Operation::Refine;
                    c.parent = ids.constLast();
                }
                if (writer->addCandidate(c) == 0 ||
                    writer->addEvaluation(c.id, evaluationFor(i)) == 0) {
                    writerFailed = true;
                    qWarning("writer: %s", qPrintable(writer->lastError()));
                }
                ids.append(c.id);
            }
            writerDone = true;
        });

        // The reader has its own read-only connection and reads in its own thread.
        std::atomic<int> passes{0};
        std::atomic<int> lastSeen{0};
        QString readerProblem;
        QThread *readerThread = QThread::create([&] {
            QString openError;
            auto reader = RunStore::open(path, RunStore::Mode::ReadOnly, &openError);
            if (!reader) {
                readerProblem = openError;
                return;
            }
            int previous = 0;
            QElapsedTimer clock;
            clock.start();
            while (readerProblem.isEmpty() && clock.elapsed() < 60000) {
                const bool done = writerDone; // read before the snapshot: then all is visible
                QList<CandidateRecord> candidates;
                QMap<qint64, EvaluationResult> evaluations;
                QList<StoredEvent> events;
                // One snapshot for the three reads, so they must agree with each other.
                const bool ok = reader->transaction([&] {
                    candidates = reader->candidates(runId);
                    evaluations = reader->evaluationsForRun(runId);
                    events = reader->events(runId);
                    return reader->lastError().isEmpty();
                });
                if (!ok) {
                    readerProblem = QStringLiteral("read failed: ") + reader->lastError();
                    break;
                }
                QSet<qint64> ids;
                for (const CandidateRecord &c : candidates) {
                    if (c.source.isEmpty() || (c.parent && !ids.contains(*c.parent)))
                        readerProblem = QStringLiteral("candidate %1 half-written").arg(c.id);
                    ids.insert(c.id);
                }
                int added = 0;
                int evaluated = 0;
                for (const StoredEvent &e : events) {
                    added += e.kind == QLatin1String("candidate_added");
                    evaluated += e.kind == QLatin1String("candidate_evaluated");
                }
                if (added != candidates.size() || evaluated != evaluations.size())
                    readerProblem = QStringLiteral("events %1/%2 vs rows %3/%4")
                                        .arg(added)
                                        .arg(evaluated)
                                        .arg(candidates.size())
                                        .arg(evaluations.size());
                for (auto it = evaluations.cbegin(); it != evaluations.cend(); ++it) {
                    if (!ids.contains(it.key()))
                        readerProblem = QStringLiteral("evaluation without its candidate");
                    if (it->stages.size() != stagesPerEvaluation || it->flags.size() != 1)
                        readerProblem = QStringLiteral("evaluation of %1 with %2 stages")
                                            .arg(it.key())
                                            .arg(it->stages.size());
                }
                if (candidates.size() - evaluations.size() > 1)
                    readerProblem = QStringLiteral("more than one unevaluated candidate");
                if (candidates.size() < previous)
                    readerProblem = QStringLiteral("rows disappeared");
                previous = int(candidates.size());
                lastSeen = previous;
                ++passes;
                if (done)
                    break;
            }
        });

        writerThread->start();
        readerThread->start();
        // Meanwhile this thread shares the writer's store with the writer thread (the store
        // serializes calls internally).
        while (!writerDone) {
            const qint64 count = writer->candidateCount(runId);
            QVERIFY(count >= 0 && count <= candidateTotal);
            QThread::msleep(5);
        }
        QVERIFY(writerThread->wait(60000));
        QVERIFY(readerThread->wait(60000));
        delete writerThread;
        delete readerThread;

        QVERIFY(!writerFailed);
        QVERIFY2(readerProblem.isEmpty(), qPrintable(readerProblem));
        QCOMPARE(lastSeen.load(), candidateTotal); // the reader eventually saw everything
        QVERIFY(passes > 1);
        qInfo("reader made %d passes", passes.load());
    }
};

QTEST_GUILESS_MAIN(TestStoreConcurrency)
#include "tst_storeconcurrency.moc"
