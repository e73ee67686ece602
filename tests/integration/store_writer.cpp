// store_writer: writes a run into a workspace database as fast as it can, for tst_storecrash,
// which kills it with SIGKILL at random moments. Continues the database's first run when there is
// one, so successive writers append to the same run.
//
//   store_writer DB COUNT     exit 0 after COUNT candidates, 2 when the database cannot be opened
//
// After each candidate is fully stored (candidate, evaluation, events, budget) it prints
// "added <candidate id>" and flushes, so the test knows what must survive a kill.

#include "store/runstore.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QStringList>

#include <cstdio>

using namespace kiln;

namespace {

int failWith(const QString &what, const QString &error)
{
    std::fprintf(stderr, "store_writer: %s: %s\n", qPrintable(what), qPrintable(error));
    return 1;
}

EvaluationResult evaluationFor(int stageCount, QRandomGenerator &random)
{
    EvaluationResult r;
    const bool pass = random.bounded(3) != 0;
    r.verdict = pass ? Verdict::Pass : Verdict::Wrong;
    r.correct = pass;
    r.speedup = 0.5 + random.generateDouble() * 2.0;
    r.candidateMs = 1.0 + random.generateDouble();
    r.baselineMs = 2.0;
    r.candidateTiming = TimingStats::fromSamples({1.0, 1.1, 0.9});
    for (int i = 0; i < stageCount; ++i)
        r.stages.append(StageResult{QStringLiteral("stage%1").arg(i),
                                    true,
                                    random.generateDouble() * 100.0,
                                    QStringLiteral("ok"),
                                    {}});
    if (random.bounded(4) == 0)
        r.flags.append(CheatFlag{QStringLiteral("note"), QStringLiteral("a note"), {1, 2}, false});
    // The crash test checks that every evaluation kept all of its stages.
    r.summary = QStringLiteral("stages=%1").arg(stageCount);
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 3) {
        std::fprintf(stderr, "usage: store_writer DB COUNT\n");
        return 2;
    }
    QString error;
    std::unique_ptr<RunStore> store = RunStore::open(args.at(1), RunStore::Mode::ReadWrite, &error);
    if (!store) {
        std::fprintf(stderr, "store_writer: %s\n", qPrintable(error));
        return 2;
    }
    const int count = args.at(2).toInt();

    qint64 runId = 0;
    const QList<RunRecord> runs = store->runs();
    if (!runs.isEmpty()) {
        runId = runs.constFirst().id;
    } else {
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("crash-test");
        run.policy = QStringLiteral("offline");
        run.backend = QStringLiteral("cpu");
        runId = store->createRun(run);
        if (runId == 0)
            return failWith(QStringLiteral("createRun"), store->lastError());
    }
    if (!store->updateRunStatus(runId, RunRecord::Status::Running))
        return failWith(QStringLiteral("updateRunStatus"), store->lastError());

    QList<qint64> ids;
    for (const CandidateRecord &c : store->candidates(runId))
        ids.append(c.id);
    BudgetUsage used = store->run(runId)->budgetUsed;
    QRandomGenerator random(quint32(QCoreApplication::applicationPid()));
    // Sources of a few pages, so that one transaction spans several writes.
    const QString body = QStringLiteral("    y[i] = x[i] * 2.0f + 1.0f;  // padding padding\n")
                             .repeated(40 + int(random.bounded(120)));

    for (int i = 0; i < count; ++i) {
        CandidateRecord c;
        c.runId = runId;
        c.task = QStringLiteral("softmax");
        c.policy = QStringLiteral("offline");
        c.source = QStringLiteral("void softmax() {\n%1}\n").arg(body);
        const int kind = ids.size() < 2 ? 0 : int(random.bounded(4));
        c.operation = kind == 0   ? Operation::Sample
                      : kind == 1 ? Operation::Refine
                      : kind == 2 ? Operation::Mutate
                                  : Operation::Crossover;
        if (kind > 0)
            c.parent = ids.at(int(random.bounded(qsizetype(ids.size()))));
        if (kind == 3)
            c.secondParent = ids.at(int(random.bounded(qsizetype(ids.size()))));
        c.promptTokens = 100 + i;
        c.completionTokens = 50;
        if (store->addCandidate(c) == 0)
            return failWith(QStringLiteral("addCandidate"), store->lastError());
        ids.append(c.id);

        const int stageCount = 2 + int(random.bounded(3));
        if (store->addEvaluation(c.id, evaluationFor(stageCount, random)) == 0)
            return failWith(QStringLiteral("addEvaluation"), store->lastError());
        if (i % 3 == 0 && store->appendEvent(runId, QStringLiteral("strategy_state"), std::nullopt,
                                             {{QStringLiteral("pool"), int(ids.size())}}) == 0)
            return failWith(QStringLiteral("appendEvent"), store->lastError());
        used.samples += 1;
        used.evals += 1;
        used.promptTokens += c.promptTokens;
        if (!store->updateRunBudget(runId, used))
            return failWith(QStringLiteral("updateRunBudget"), store->lastError());
        std::printf("added %lld\n", static_cast<long long>(c.id));
        std::fflush(stdout);
    }
    if (!store->updateRunStatus(runId, RunRecord::Status::Finished))
        return failWith(QStringLiteral("updateRunStatus"), store->lastError());
    return 0;
}
