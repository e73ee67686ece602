// Duplicates and confirmation over the real CPU verifier and SQLite store: a policy that keeps
// writing one kernel (re-commented, re-indented) gets it judged once and the judgement reused;
// the run's best is re-measured before it counts; duplicates=remeasure judges every copy afresh
// and still marks it.
#include "engine/reports/runreport.h"
#include "engine/runconfig.h"
#include "engine/searchengine.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

// The task's own reference, with a different comment and indentation in every sample.
class RepeatingPolicy : public Policy
{
public:
    QString name() const override { return u"repeating"_s; }
    GenerationResult generate(const GenerationRequest &request, const std::atomic<bool> &) override
    {
        QFile file(QStringLiteral(KILN_SOURCE_DIR "/tasks/vector_add/reference.cpp"));
        file.open(QIODevice::ReadOnly);
        QString source = QString::fromUtf8(file.readAll());
        source.prepend(u"// sample %1\n"_s.arg(request.sampleIndex));
        if (request.sampleIndex % 2)
            source.replace(u"    "_s, u"  "_s);
        GenerationResult result;
        result.ok = true;
        result.candidate.source = source;
        result.candidate.policy = name();
        return result;
    }
};

struct Judged
{
    qint64 runId = 0;
    QList<CandidateRecord> candidates;
    QMap<qint64, EvaluationResult> latest;
    QHash<qint64, int> evaluations; // per candidate, from the event log
    QJsonObject result;
};

Judged search(RunStore &store, const QString &duplicates)
{
    const TaskLibrary library = TaskLibrary::standard();
    VerifierEvaluator evaluator(VerifierOptions::defaults(), 1);
    RepeatingPolicy policy;
    SearchEngine engine(store, library, policy, evaluator,
                        [](const QString &name) { return StrategyRegistry::create(name); });
    RunConfig config;
    config.tasks = {u"vector_add"_s};
    config.strategy = u"best-of-n"_s;
    config.budgetAxis = BudgetAxis::Samples;
    config.budget = 4;
    config.roundLimit = 2;
    config.duplicates = duplicates;
    QString error;
    Judged j;
    j.runId = engine.create(config, &error);
    if (j.runId == 0)
        qFatal("%s", qPrintable(error));
    engine.run();
    j.candidates = store.candidates(j.runId);
    j.latest = store.evaluationsForRun(j.runId);
    for (const StoredEvent &e : store.events(j.runId, 0, u"candidate_evaluated"_s))
        j.evaluations[e.candidateId.value_or(0)] += 1;
    j.result = RunReport::resultJson(store, j.runId);
    return j;
}

} // namespace

class TestJudgements : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { qputenv("KILN_CACHE_DIR", KILN_BINARY_DIR "/test-compile-cache"); }

    void duplicatesReuseTheFirstJudgementAndTheBestIsConfirmed()
    {
        QTemporaryDir dir;
        auto store = RunStore::open(dir.filePath(u"w.db"_s), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        const Judged j = search(*store, u"reuse"_s);
        QCOMPARE(j.candidates.size(), 4);
        // The first to be judged is the original (two evaluation workers may take the second
        // sample first); every other copy is its duplicate.
        qint64 first = 0;
        for (const CandidateRecord &c : j.candidates)
            if (!j.latest.value(c.id).duplicateOf)
                first = first == 0 ? c.id : -1;
        QVERIFY2(first > 0, "exactly one candidate is judged for itself");
        const EvaluationResult &original = j.latest.value(first);
        QCOMPARE(original.verdict, Verdict::Pass);
        QVERIFY2(original.confirmed, "the run's best must be a confirmed figure");
        QVERIFY(original.speedupInterval);
        QCOMPARE(j.evaluations.value(first), 2); // the judgement and its confirmation
        for (const CandidateRecord &c : j.candidates) {
            const qint64 id = c.id;
            if (id == first)
                continue;
            const EvaluationResult &e = j.latest.value(id);
            QCOMPARE(e.duplicateOf, std::optional<qint64>(first));
            QCOMPARE(e.verdict, original.verdict);
            QCOMPARE(e.speedup, original.speedup);
            QVERIFY(e.stage(u"duplicate"_s));
            QVERIFY2(!e.stage(u"timing"_s), "a reused judgement is not measured again");
            QCOMPARE(j.evaluations.value(id), 1);
        }
        QCOMPARE(j.result.value(u"duplicates"_s).toInt(), 3);
        const QJsonObject best = j.result.value(u"best"_s).toObject();
        QCOMPARE(qint64(best.value(u"candidate_id"_s).toDouble()), first);
        QVERIFY(best.value(u"confirmed"_s).toBool());
        QVERIFY(best.value(u"speedup_low"_s).toDouble() <= best.value(u"speedup"_s).toDouble());
        // Four judgements toward the budget, but only the first (and its confirmation) ran:
        // device time is that of two evaluations.
        const QJsonObject used = j.result.value(u"budget_used"_s).toObject();
        QCOMPARE(used.value(u"evals"_s).toInt(), 4);
        double ran = 0.0;
        for (const StoredEvent &e : store->events(j.runId, 0, u"candidate_evaluated"_s))
            ran += e.candidateId == first ? 1 : 0;
        QCOMPARE(ran, 2.0);
    }

    void remeasuredDuplicatesAreJudgedAndMarked()
    {
        QTemporaryDir dir;
        auto store = RunStore::open(dir.filePath(u"w.db"_s), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        const Judged j = search(*store, u"remeasure"_s);
        int originals = 0;
        for (const CandidateRecord &c : j.candidates) {
            const EvaluationResult &e = j.latest.value(c.id);
            if (!e.duplicateOf) {
                ++originals;
                continue;
            }
            QVERIFY2(e.stage(u"timing"_s), "remeasure judges every copy afresh");
            QVERIFY(e.speedupInterval);
        }
        QCOMPARE(originals, 1);
        QCOMPARE(j.result.value(u"duplicates"_s).toInt(), 3);
        QCOMPARE(j.result.value(u"budget_used"_s).toObject().value(u"evals"_s).toInt(), 4);
    }
};

QTEST_GUILESS_MAIN(TestJudgements)
#include "tst_judgements.moc"
