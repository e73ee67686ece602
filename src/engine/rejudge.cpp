#include "rejudge.h"

#include "engine/runconfig.h"
#include "engine/shapeproposal.h"
#include "store/runstore.h"

#include <QHash>
#include <QRandomGenerator>
#include <thread>
#include <vector>

namespace kiln {

namespace {

// Every source judged, as many at once as the evaluator allows; results in candidate order.
// Rejudge::run has checked that the library has every candidate's task.
QList<std::optional<EvaluationResult>>
judgeAll(const QList<CandidateRecord> &candidates, const TaskLibrary &library, Evaluator &evaluator,
         Backend backend, quint64 secret, const QString &language, const std::atomic<bool> &cancel)
{
    QList<std::optional<EvaluationResult>> results(candidates.size());
    std::atomic<qsizetype> next{0};
    auto work = [&] {
        for (qsizetype i = next++; i < candidates.size() && !cancel.load(); i = next++) {
            const CandidateRecord &c = candidates[i];
            if (c.source.isEmpty())
                continue;
            Task task = ShapeProposal::forCandidate(*library.task(c.task), c);
            if (task.isKernelBench())
                task.candidateLanguage = language; // judged in the run's language again
            results[i] = evaluator.evaluate(task, backend, c.source, secret, cancel);
        }
    };
    std::vector<std::thread> workers;
    for (int t = 0; t < std::max(1, evaluator.concurrency()); ++t)
        workers.emplace_back(work);
    for (std::thread &worker : workers)
        worker.join();
    return results;
}

} // namespace

std::optional<Rejudge::Outcome> Rejudge::run(RunStore &store, const TaskLibrary &library,
                                             Evaluator &evaluator, qint64 runId,
                                             const QString &verifier,
                                             const std::atomic<bool> &cancel, QString *error)
{
    const std::optional<RunRecord> original = store.run(runId);
    if (!original) {
        *error = QStringLiteral("no run %1 in %2").arg(runId).arg(store.path());
        return std::nullopt;
    }
    const QList<CandidateRecord> candidates = store.candidates(runId);
    for (const CandidateRecord &c : candidates)
        if (!library.task(c.task)) {
            *error = QStringLiteral("run %1 has candidates of task '%2', which the task library "
                                    "does not have")
                         .arg(runId)
                         .arg(c.task);
            return std::nullopt;
        }
    RunRecord copy = *original;
    copy.id = 0;
    copy.createdAt = copy.updatedAt = QDateTime();
    copy.status = RunRecord::Status::Finished;
    copy.config.insert(QStringLiteral("verifier"), verifier);
    copy.config.insert(QStringLiteral("rejudged_from"), double(runId));
    // The strict verifier's inputs derive from a secret: the original's, else a fresh one.
    copy.verifierSecret =
        original->verifierSecret.value_or(QRandomGenerator::system()->generate64());
    const Backend backend = backendFromName(original->backend).value_or(Backend::Cpu);
    const QList<std::optional<EvaluationResult>> results =
        judgeAll(candidates, library, evaluator, backend, *copy.verifierSecret,
                 RunConfig::languageOf(original->config), cancel);
    if (cancel.load()) {
        *error = QStringLiteral("cancelled");
        return std::nullopt;
    }
    const QMap<qint64, EvaluationResult> before = store.evaluationsForRun(runId);
    Outcome outcome;
    const bool stored = store.transaction([&] {
        if (store.createRun(copy) == 0)
            return false;
        QHash<qint64, qint64> ids; // original id -> new id
        for (qsizetype i = 0; i < candidates.size(); ++i) {
            CandidateRecord c = candidates[i];
            const qint64 from = c.id;
            c.id = 0;
            c.runId = copy.id;
            c.createdAt = QDateTime();
            if (c.parent)
                c.parent = ids.value(*c.parent);
            if (c.secondParent)
                c.secondParent = ids.value(*c.secondParent);
            if (store.addCandidate(c) == 0)
                return false;
            ids.insert(from, c.id);
            if (!results[i])
                continue;
            if (store.addEvaluation(c.id, *results[i]) == 0)
                return false;
            ++outcome.evaluated;
            outcome.changed +=
                before.contains(from) && before.value(from).verdict != results[i]->verdict;
        }
        BudgetUsage used = original->budgetUsed;
        used.evals = outcome.evaluated;
        return store.updateRunBudget(copy.id, used) &&
               store.updateRunStatus(copy.id, RunRecord::Status::Finished);
    });
    if (!stored) {
        *error = QStringLiteral("could not store the rejudged run: ") + store.lastError();
        return std::nullopt;
    }
    outcome.runId = copy.id;
    return outcome;
}

} // namespace kiln
