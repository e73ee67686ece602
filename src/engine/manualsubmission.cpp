#include "engine/manualsubmission.h"

#include "engine/evaluator.h"
#include "engine/runconfig.h"
#include "engine/searchengine.h"
#include "policies/manualpolicy.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

namespace kiln {

namespace {

double evaluationSeconds(const EvaluationResult &result)
{
    double ms = 0.0;
    for (const StageResult &stage : result.stages)
        ms += stage.ms;
    return ms / 1e3;
}

// The manual node for a request, or nothing with *error.
std::optional<CandidateRecord> manualNode(RunStore &store, const RunRecord &run,
                                          const ManualSubmission::Request &request, QString *error)
{
    if (request.parent) {
        const std::optional<CandidateRecord> parent = store.candidate(*request.parent);
        if (!parent || parent->runId != run.id) {
            *error = QStringLiteral("no candidate %1 in run %2").arg(*request.parent).arg(run.id);
            return std::nullopt;
        }
        return ManualPolicy::makeChild(*parent, request.source, request.note);
    }
    const QString task = request.task.isEmpty() ? run.tasks.value(0) : request.task;
    if (!run.tasks.contains(task)) {
        *error = QStringLiteral("run %1 does not search task '%2'").arg(run.id).arg(task);
        return std::nullopt;
    }
    return ManualPolicy::makeRoot(run.id, task, request.source, request.note);
}

} // namespace

std::optional<ManualSubmission::Outcome>
ManualSubmission::submit(RunStore &store, const TaskLibrary &tasks, Evaluator &evaluator,
                         const Request &request, const std::atomic<bool> &cancel, QString *error,
                         bool *usage, const std::function<void(const CandidateRecord &)> &stored)
{
    bool dummy = false;
    bool &badInput = usage ? *usage : dummy;
    badInput = true;
    if (request.source.trimmed().isEmpty()) {
        *error = QStringLiteral("the candidate is empty");
        return std::nullopt;
    }
    const std::optional<RunRecord> run = store.run(request.runId);
    if (!run || run->kind != QLatin1String("search") || run->tasks.isEmpty()) {
        *error = QStringLiteral("no search run %1 in %2").arg(request.runId).arg(store.path());
        return std::nullopt;
    }
    std::optional<CandidateRecord> node = manualNode(store, *run, request, error);
    if (!node)
        return std::nullopt;
    const Task *task = tasks.task(node->task);
    const std::optional<Backend> backend = backendFromName(run->backend);
    if (!task || !backend) {
        *error = QStringLiteral("task '%1' of run %2 is not in the task library")
                     .arg(node->task)
                     .arg(run->id);
        return std::nullopt;
    }
    badInput = false;
    Outcome outcome;
    outcome.candidate = *node;
    if (store.addCandidate(outcome.candidate) == 0) {
        *error = store.lastError();
        return std::nullopt;
    }
    if (stored)
        stored(outcome.candidate);
    Task judged = *task;
    if (judged.isKernelBench()) // in the run's language, as its own candidates were
        judged.candidateLanguage = RunConfig::languageOf(run->config);
    outcome.result =
        evaluator.evaluate(judged, *backend, request.source, SearchEngine::secretOf(*run), cancel);
    if (cancel) {
        *error = QStringLiteral("cancelled; candidate %1 is stored without a verdict")
                     .arg(outcome.candidate.id);
        return std::nullopt;
    }
    if (store.addEvaluation(outcome.candidate.id, outcome.result) == 0) {
        *error = store.lastError();
        return std::nullopt;
    }
    return outcome;
}

qint64 ManualSubmission::recordEvaluation(RunStore &store, const Task &task, Backend backend,
                                          quint64 seed, const QString &origin,
                                          const QString &source, const EvaluationResult &result,
                                          QString *error)
{
    RunRecord run;
    run.kind = QStringLiteral("eval");
    run.tasks = {task.name};
    run.policy = QStringLiteral("manual");
    run.backend = backendName(backend);
    run.seed = seed;
    run.verifierSecret = seed; // an evaluation's inputs derive from its seed directly
    run.status = RunRecord::Status::Finished;
    run.config = QJsonObject{{QStringLiteral("file"), origin}};
    qint64 runId = 0;
    const bool stored = store.transaction([&] {
        runId = store.createRun(run, {{task.name, task.summaryJson()}});
        CandidateRecord candidate = ManualPolicy::makeRoot(runId, task.name, source);
        if (runId == 0 || store.addCandidate(candidate) == 0 ||
            store.addEvaluation(candidate.id, result) == 0)
            return false;
        BudgetUsage used;
        used.evals = 1;
        used.deviceSeconds = evaluationSeconds(result);
        return store.updateRunBudget(runId, used) &&
               store.updateRunStatus(runId, RunRecord::Status::Finished);
    });
    if (!stored) {
        *error = QStringLiteral("cannot store the evaluation: %1").arg(store.lastError());
        return 0;
    }
    return runId;
}

} // namespace kiln
