#include "searchengine.h"

#include "engine/agentpipeline.h"
#include "engine/baselinewatch.h"
#include "engine/duplicatejudgement.h"
#include "engine/localexecutor.h"
#include "engine/memory/memorylesson.h"
#include "engine/memory/memoryranker.h"
#include "engine/profile/profilesession.h"
#include "engine/reports/trajectorylog.h"
#include "engine/shapeproposal.h"
#include "engine/sourcefingerprint.h"
#include "policies/policy.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>
#include <vector>

namespace kiln {

namespace {

quint64 mix(quint64 x)
{
    // splitmix64 finaliser: decorrelates the per-task strategy seeds and the run secret.
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

QJsonObject requestToJson(const ExpansionRequest &request)
{
    QJsonArray parents;
    for (qint64 id : request.parents)
        parents.append(double(id));
    QJsonObject object{{QStringLiteral("operation"), operationName(request.operation)},
                       {QStringLiteral("parents"), parents},
                       {QStringLiteral("island"), request.island},
                       {QStringLiteral("generation"), request.generation},
                       {QStringLiteral("reasoning_length"), double(request.reasoningLength)},
                       {QStringLiteral("task"), request.task}};
    // Only when set, so the log of a run without them reads as before.
    if (request.memoryEntries > 0)
        object.insert(QStringLiteral("memory"), request.memoryEntries);
    if (request.agentRoles)
        object.insert(QStringLiteral("agents"), true);
    return object;
}

bool sameRequest(const ExpansionRequest &request, const QJsonObject &recorded)
{
    QJsonArray parents;
    for (qint64 id : request.parents)
        parents.append(double(id));
    return operationName(request.operation) ==
               recorded.value(QStringLiteral("operation")).toString() &&
           parents == recorded.value(QStringLiteral("parents")).toArray();
}

double evaluationSeconds(const EvaluationResult &result)
{
    double ms = 0.0;
    for (const StageResult &stage : result.stages)
        ms += stage.ms;
    return ms / 1000.0;
}

} // namespace

SearchEngine::SearchEngine(RunStore &store, const TaskLibrary &tasks, Policy &policy,
                           Evaluator &evaluator, StrategyMaker makeStrategy, QObject *parent)
    : QObject(parent), m_store(store), m_tasks(tasks), m_policy(policy), m_evaluator(evaluator),
      m_makeStrategy(std::move(makeStrategy))
{
}

SearchEngine::~SearchEngine() = default;

const Task *SearchEngine::task(const QString &name) const
{
    const Task *shared = m_tasks.task(name);
    if (!shared || !shared->isKernelBench())
        return shared;
    // The verifier judges a KernelBench candidate in the run's language (a mismatch is
    // flagged), so each run's evaluations carry it on the task.
    std::unique_ptr<Task> &copy = m_languageTasks[name];
    if (!copy || copy->candidateLanguage != m_config.language) {
        copy = std::make_unique<Task>(*shared);
        copy->candidateLanguage = m_config.language;
    }
    return copy.get();
}

qint64 SearchEngine::create(const RunConfig &config, QString *error)
{
    if (config.tasks.isEmpty()) {
        *error = QStringLiteral("no task given");
        return 0;
    }
    QMap<QString, QJsonObject> snapshots;
    for (const QString &name : config.tasks) {
        const Task *t = task(name);
        if (!t) {
            *error = QStringLiteral("unknown task '%1'").arg(name);
            return 0;
        }
        if (!t->backends().contains(config.backend)) {
            *error = QStringLiteral("task '%1' has no %2 reference")
                         .arg(name, backendName(config.backend));
            return 0;
        }
        snapshots.insert(name, t->summaryJson());
    }
    if (!m_makeStrategy(config.strategy)) {
        *error = QStringLiteral("unknown strategy '%1'").arg(config.strategy);
        return 0;
    }
    RunRecord run;
    run.kind = QStringLiteral("search");
    run.tasks = config.tasks;
    run.strategy = config.strategy;
    run.policy = config.policy;
    run.backend = backendName(config.backend);
    run.seed = config.seed;
    run.verifierSecret = newSecret(config.verifierSeed);
    run.config = config.toJson();
    const qint64 id = m_store.createRun(run, snapshots);
    if (id == 0) {
        *error = m_store.lastError();
        return 0;
    }
    return load(id, error) ? id : 0;
}

bool SearchEngine::load(qint64 runId, QString *error)
{
    const std::optional<RunRecord> run = m_store.run(runId);
    if (!run) {
        *error = QStringLiteral("no run %1 in %2").arg(runId).arg(m_store.path());
        return false;
    }
    if (run->kind != QLatin1String("search")) {
        *error = QStringLiteral("run %1 is an evaluation, not a search").arg(runId);
        return false;
    }
    m_runId = runId;
    m_config = RunConfig::fromJson(run->config);
    m_storedWallSeconds = run->budgetUsed.wallSeconds;
    // The secret of the verifier's test inputs: the run's own, stored with it; a policy gets
    // the run seed, from which nothing about it follows.
    m_runSecret = secretOf(*run);
    return setUp(error) && replay(error);
}

bool SearchEngine::setUp(QString *error)
{
    m_strategies.clear();
    for (int i = 0; i < m_config.tasks.size(); ++i) {
        const QString &name = m_config.tasks[i];
        if (!task(name)) {
            *error = QStringLiteral("task '%1' of run %2 is not in the task library")
                         .arg(name)
                         .arg(m_runId);
            return false;
        }
        std::unique_ptr<Strategy> strategy = m_makeStrategy(m_config.strategy);
        if (!strategy) {
            *error = QStringLiteral("unknown strategy '%1'").arg(m_config.strategy);
            return false;
        }
        strategy->configure(m_config.strategyParameters, mix(m_config.seed + quint64(i)));
        m_strategies.insert(name, std::shared_ptr<Strategy>(std::move(strategy)));
    }
    m_allocator =
        std::make_unique<BudgetAllocator>(m_config.tasks, m_config.budget,
                                          BudgetAllocator::modeFromName(m_config.allocation)
                                              .value_or(BudgetAllocator::Mode::Adaptive));
    m_ledger = BudgetLedger();
    m_ledger.setLimit(m_config.budgetAxis, m_config.budget);
    m_ledger.setTargetSpeedup(m_config.targetSpeedup);
    m_ledger.setPlateauRounds(m_config.plateauRounds);
    return true;
}

bool SearchEngine::replay(QString *error)
{
    const QHash<qint64, qint64> bySampleIndex = loadStoredJudgements();

    QHash<int, QJsonObject> started;
    QSet<int> finished;
    QList<int> order;
    for (const StoredEvent &event : m_store.events(m_runId)) {
        const int round = event.payload.value(QStringLiteral("round")).toInt(-1);
        if (event.kind == QLatin1String("round_started")) {
            started.insert(round, event.payload);
            order.append(round);
        } else if (event.kind == QLatin1String("round_finished")) {
            finished.insert(round);
        }
    }
    m_nextRound = 0;
    m_nextIndex = 0;
    m_bestSpeedup = 0.0;
    m_interrupted.clear();
    for (int round : order) {
        const std::optional<RoundPlan> plan = replayedPlan(round, started.value(round), error);
        if (!plan)
            return false;
        m_nextRound = round + 1;
        m_nextIndex = plan->firstIndex + plan->requests.size();
        // A crash cut it short: finish it before asking anew. Rounds run at once are recorded
        // in their order, so the unfinished ones are the last (of other tasks).
        if (!finished.contains(round)) {
            m_interrupted.append(*plan);
            continue;
        }
        QList<NodeResult> results;
        for (int i = 0; i < plan->requests.size(); ++i) {
            const qint64 id = bySampleIndex.value(plan->firstIndex + i, 0);
            const CandidateRecord candidate = m_candidates.value(id);
            const auto ev = m_evaluations.constFind(id);
            results.append(nodeResult(plan->requests[i], candidate,
                                      ev == m_evaluations.cend() ? nullptr : &ev.value()));
        }
        finishRound(*plan, results);
    }
    return true;
}

QHash<qint64, qint64> SearchEngine::loadStoredJudgements()
{
    m_candidates.clear();
    m_evaluations.clear();
    QHash<qint64, qint64> bySampleIndex;
    BudgetUsage used;
    for (const CandidateRecord &c : m_store.candidates(m_runId)) {
        m_candidates.insert(c.id, c);
        bySampleIndex.insert(c.sampleIndex, c.id);
        used.samples += 1;
        used.promptTokens += c.promptTokens;
        used.completionTokens += c.completionTokens;
        used.reasoningTokens += c.reasoningTokens;
        used.cost += c.policyMeta.value(QStringLiteral("cost")).toDouble();
    }
    const QMap<qint64, EvaluationResult> evaluations = m_store.evaluationsForRun(m_runId);
    for (auto it = evaluations.cbegin(); it != evaluations.cend(); ++it) {
        m_evaluations.insert(it.key(), it.value());
        used.evals += 1; // a reused judgement too (it spends no device time)
    }
    // Every evaluation row, confirmations included, as the live run charged them.
    used.deviceSeconds = m_store.evaluationMilliseconds(m_runId) / 1000.0;
    used.wallSeconds = m_storedWallSeconds;
    m_ledger.setUsed(used);
    indexJudgements();
    return bySampleIndex;
}

std::optional<SearchEngine::RoundPlan>
SearchEngine::replayedPlan(int round, const QJsonObject &payload, QString *error)
{
    RoundPlan plan;
    plan.round = round;
    plan.task = payload.value(QStringLiteral("task")).toString();
    plan.firstIndex = qint64(payload.value(QStringLiteral("first_index")).toDouble());
    const QJsonArray recorded = payload.value(QStringLiteral("requests")).toArray();
    Strategy *strategy = m_strategies.value(plan.task).get();
    if (!strategy) {
        *error = QStringLiteral("run %1 names task '%2' that it does not search")
                     .arg(m_runId)
                     .arg(plan.task);
        return std::nullopt;
    }
    plan.requests = strategy->ask(payload.value(QStringLiteral("max_requests")).toInt());
    bool same = plan.requests.size() == recorded.size();
    for (int i = 0; same && i < recorded.size(); ++i)
        same = sameRequest(plan.requests[i], recorded[i].toObject());
    if (!same) {
        *error = QStringLiteral("run %1 cannot be resumed: the %2 strategy asks differently at "
                                "round %3 than recorded (was it changed?)")
                     .arg(m_runId)
                     .arg(m_config.strategy)
                     .arg(round);
        return std::nullopt;
    }
    return plan;
}

quint64 SearchEngine::secretOf(const RunRecord &run)
{
    // Runs stored before schema 5 derived theirs from the run seed; they keep it on resume.
    return run.verifierSecret ? *run.verifierSecret : mix(run.seed ^ 0x6b696c6e5ec2e7ULL);
}

quint64 SearchEngine::newSecret(const std::optional<quint64> &verifierSeed)
{
    return verifierSeed ? mix(*verifierSeed ^ 0x76657269667931ULL)
                        : QRandomGenerator::system()->generate64();
}

BudgetUsage SearchEngine::used() const
{
    std::lock_guard lock(m_mutex);
    return m_ledger.used();
}

QString SearchEngine::run()
{
    m_store.updateRunStatus(m_runId, RunRecord::Status::Running);
    m_store.appendEvent(m_runId, QStringLiteral("run_started"));
    const QString reason = runRounds();
    profileChosen();
    {
        std::lock_guard lock(m_mutex);
        m_store.updateRunBudget(m_runId, m_ledger.used());
    }
    m_store.updateRunStatus(m_runId,
                            m_cancel ? RunRecord::Status::Cancelled : RunRecord::Status::Finished);
    m_store.appendEvent(m_runId, QStringLiteral("run_stopped"), std::nullopt,
                        {{QStringLiteral("reason"), reason}});
    emit finished(reason);
    return reason;
}

QString SearchEngine::runRounds()
{
    QElapsedTimer session;
    session.start();
    qint64 pausedNs = 0; // a paused run spends no wall-clock budget
    auto updateWall = [&] {
        std::lock_guard lock(m_mutex);
        BudgetUsage u = m_ledger.used();
        u.wallSeconds = m_storedWallSeconds + (session.nsecsElapsed() - pausedNs) * 1e-9;
        m_ledger.setUsed(u);
    };
    // False when a cancel cut the rounds short: they are then not recorded as finished.
    auto executeAndPersist = [&](const QList<RoundPlan> &plans) {
        const QList<QList<NodeResult>> results = executeRounds(plans);
        if (m_cancel)
            return false;
        updateWall();
        for (qsizetype i = 0; i < plans.size(); ++i)
            persistRound(plans[i], results[i]);
        return true;
    };

    if (!m_interrupted.isEmpty()) {
        const QList<RoundPlan> plans = std::exchange(m_interrupted, {});
        if (!executeAndPersist(plans))
            return QStringLiteral("cancelled");
    }
    for (;;) {
        pausedNs += waitWhilePaused();
        if (m_cancel)
            return QStringLiteral("cancelled");
        updateWall();
        QString reason;
        {
            std::lock_guard lock(m_mutex);
            reason = m_ledger.stopReason();
        }
        if (!reason.isEmpty())
            return reason;
        if (!m_uncountedSpend.isEmpty()) // spending 0 forever would never end the run
            return m_uncountedSpend;
        const QList<RoundPlan> plans = planRounds();
        if (plans.isEmpty())
            return QStringLiteral("every task's share of the budget is spent");
        if (!executeAndPersist(plans))
            return QStringLiteral("cancelled");
    }
}

QList<SearchEngine::RoundPlan> SearchEngine::planRounds()
{
    QList<RoundPlan> plans;
    QSet<QString> busy;
    int reserved = 0;
    while (plans.size() < std::max(1, m_config.tasksAtOnce)) {
        const QString taskName = m_allocator->nextTask(busy);
        if (taskName.isEmpty())
            break;
        const int maxRequests = startable(taskName, reserved);
        if (maxRequests == 0 && reserved > 0)
            break; // the rounds planned already hold what the budget has left
        QList<ExpansionRequest> requests = maxRequests > 0
                                               ? m_strategies.value(taskName)->ask(maxRequests)
                                               : QList<ExpansionRequest>();
        if (requests.isEmpty()) {
            m_allocator->markDone(taskName);
            m_store.appendEvent(m_runId, QStringLiteral("task_done"), std::nullopt,
                                {{QStringLiteral("task"), taskName}});
            continue;
        }
        // A count budget is never overspent, even by a strategy that asks for too much.
        if (requests.size() > maxRequests)
            requests.resize(maxRequests);
        plans.append(startRound(taskName, requests, maxRequests));
        busy.insert(taskName);
        reserved += int(requests.size());
    }
    return plans;
}

QList<QList<NodeResult>> SearchEngine::executeRounds(const QList<RoundPlan> &plans)
{
    if (plans.size() == 1)
        return {executeRound(plans[0])};
    std::vector<QList<NodeResult>> results(size_t(plans.size())); // one slot per thread
    std::vector<std::thread> rounds;
    for (qsizetype i = 0; i < plans.size(); ++i)
        rounds.emplace_back(
            [this, &plans, &results, i] { results[size_t(i)] = executeRound(plans[i]); });
    for (std::thread &round : rounds)
        round.join();
    return QList<QList<NodeResult>>(results.begin(), results.end());
}

SearchEngine::RoundPlan SearchEngine::startRound(const QString &taskName,
                                                 const QList<ExpansionRequest> &requests,
                                                 int maxRequests)
{
    RoundPlan plan;
    plan.round = m_nextRound++;
    plan.task = taskName;
    plan.requests = requests;
    plan.firstIndex = m_nextIndex;
    m_nextIndex += requests.size();
    QJsonArray requestArray;
    for (const ExpansionRequest &r : requests)
        requestArray.append(requestToJson(r));
    m_store.appendEvent(m_runId, QStringLiteral("round_started"), std::nullopt,
                        {{QStringLiteral("round"), plan.round},
                         {QStringLiteral("task"), plan.task},
                         {QStringLiteral("max_requests"), maxRequests},
                         {QStringLiteral("first_index"), double(plan.firstIndex)},
                         {QStringLiteral("requests"), requestArray}});
    return plan;
}

void SearchEngine::persistRound(const RoundPlan &plan, const QList<NodeResult> &results)
{
    const qsizetype evictedBefore = m_strategies.value(plan.task)->evicted().size();
    finishRound(plan, results);
    // Candidates the strategy dropped stay in the tree as ghosts: record when they left.
    const QList<qint64> evicted = m_strategies.value(plan.task)->evicted();
    if (evicted.size() > evictedBefore) {
        QJsonArray ids;
        for (qsizetype i = evictedBefore; i < evicted.size(); ++i)
            ids.append(double(evicted[i]));
        m_store.appendEvent(m_runId, QStringLiteral("evicted"), std::nullopt,
                            {{QStringLiteral("round"), plan.round},
                             {QStringLiteral("task"), plan.task},
                             {QStringLiteral("ids"), ids}});
        emit candidatesEvicted(evicted.mid(evictedBefore));
    }
    BudgetUsage used;
    {
        std::lock_guard lock(m_mutex);
        m_store.appendEvent(m_runId, QStringLiteral("round_finished"), std::nullopt,
                            {{QStringLiteral("round"), plan.round},
                             {QStringLiteral("task"), plan.task},
                             {QStringLiteral("best_speedup"), m_bestSpeedup}});
        used = m_ledger.used();
        m_store.updateRunBudget(m_runId, used);
    }
    emit progress(used, m_bestSpeedup);
}

int SearchEngine::startable(const QString &taskName, int reserved) const
{
    const bool count = isCountAxis(m_config.budgetAxis);
    // Capped on every axis: handing a count budget's whole remainder to one round turned
    // greedy, MCTS and two-phase into one-step expansions.
    int cap = std::max(1, m_config.roundLimit);
    if (m_config.tasks.size() > 1) {
        const double allowance = m_allocator->allowance(taskName);
        // A share is fractional (a probe share of budget / tasks / 5): what is left of it still
        // buys one more evaluation; the ledger keeps the run's total exact.
        if (count)
            cap = std::min<double>(cap, std::ceil(allowance - 1e-9));
        else if (allowance <= 0.0)
            cap = 0;
    }
    std::lock_guard lock(m_mutex);
    return m_ledger.startableRequests(reserved, cap);
}

GenerationRequest SearchEngine::generationRequest(const RoundPlan &plan, int index,
                                                  const QList<MemoryEntry> &memory) const
{
    const ExpansionRequest &r = plan.requests[index];
    GenerationRequest g;
    g.task = task(r.task.isEmpty() ? plan.task : r.task);
    g.backend = m_config.backend;
    g.operation = r.operation;
    for (qint64 parent : r.parents) {
        g.parents.append(m_candidates.value(parent));
        g.parentEvaluations.append(
            ProfileSession::withStoredProfile(m_store, parent, m_evaluations.value(parent)));
    }
    g.reasoningLength = r.reasoningLength > 0 ? r.reasoningLength : m_config.reasoningLength;
    g.seed = m_config.seed;
    g.sampleIndex = plan.firstIndex + index;
    g.generation = r.generation;
    g.island = r.island;
    if (r.memoryEntries > 0 && g.task)
        g.memory =
            MemoryRanker::rank(memory, g.task->name, backendName(g.backend),
                               MemoryLesson::timingShape(*g.task, g.backend), r.memoryEntries);
    g.agentRoles = r.agentRoles;
    if (r.agentRoles && !r.parents.isEmpty())
        g.roleContext.insert(QStringLiteral("trajectory"),
                             TrajectoryLog::text(r.parents.first(), m_candidates, m_evaluations));
    return g;
}

QList<NodeResult> SearchEngine::executeRound(const RoundPlan &plan)
{
    const QList<Job> jobs = roundJobs(plan);

    Executor::Hooks hooks;
    hooks.generated = [this, &plan](const Job &job, GenerationResult &generation) {
        recordCandidate(plan, job, generation);
    };
    hooks.evaluated = [this, &plan](const Job &job, const GenerationResult &generation,
                                    const EvaluationResult &result) {
        recordEvaluation(plan, job, generation, result);
    };

    addJudgementHooks(hooks, plan);

    // Requests of the agents strategy go through its roles; every other one straight to the policy.
    AgentPipeline pipeline(m_policy, m_evaluator, m_runSecret);
    LocalExecutor executor(pipeline, m_evaluator, m_runSecret, m_config.generationThreads);
    const QList<JobOutcome> outcomes = executor.execute(jobs, hooks, m_cancel);

    QList<NodeResult> results;
    std::lock_guard lock(m_mutex);
    for (int i = 0; i < outcomes.size(); ++i) {
        const JobOutcome &o = outcomes[i];
        results.append(nodeResult(plan.requests[i], o.generation.candidate,
                                  o.evaluation ? &*o.evaluation : nullptr));
    }
    return results;
}

QList<Job> SearchEngine::roundJobs(const RoundPlan &plan) const
{
    QList<Job> jobs;
    std::lock_guard lock(m_mutex);
    const bool readsMemory =
        std::any_of(plan.requests.cbegin(), plan.requests.cend(),
                    [](const ExpansionRequest &r) { return r.memoryEntries > 0; });
    const QList<MemoryEntry> memory = readsMemory ? m_store.memoryEntries() : QList<MemoryEntry>();
    for (int i = 0; i < plan.requests.size(); ++i) {
        Job job;
        job.index = i;
        job.request = generationRequest(plan, i, memory);
        // Resuming: reuse what the interrupted process already stored for this slot.
        for (const CandidateRecord &c : std::as_const(m_candidates)) {
            if (c.sampleIndex == job.request.sampleIndex) {
                job.existing = c;
                if (m_evaluations.contains(c.id))
                    job.existingEvaluation = m_evaluations.value(c.id);
                break;
            }
        }
        jobs.append(job);
    }
    return jobs;
}

void SearchEngine::recordCandidate(const RoundPlan &plan, const Job &job,
                                   GenerationResult &generation)
{
    CandidateRecord &c = generation.candidate;
    const ExpansionRequest &r = plan.requests[job.index];
    c.runId = m_runId;
    c.task = job.request.task->name;
    c.parent = r.parents.isEmpty() ? std::nullopt : std::optional<qint64>(r.parents.value(0));
    c.secondParent = r.parents.size() > 1 ? std::optional<qint64>(r.parents[1]) : std::nullopt;
    c.operation = r.operation;
    c.generation = r.generation;
    c.island = r.island;
    c.sampleIndex = job.request.sampleIndex;
    c.round = plan.round;
    if (c.reasoningLength == 0)
        c.reasoningLength = job.request.reasoningLength;
    if (c.policy.isEmpty())
        c.policy = m_policy.name();
    if (!generation.ok) {
        c.source.clear();
        c.policyMeta.insert(QStringLiteral("failure"), generation.error);
    }
    {
        std::lock_guard lock(m_mutex);
        if (m_store.addCandidate(c) == 0) {
            generation.ok = false;
            generation.error =
                QStringLiteral("could not store the candidate: ") + m_store.lastError();
            return;
        }
        m_candidates.insert(c.id, c);
        BudgetUsage spent;
        spent.samples = 1;
        spent.promptTokens = c.promptTokens;
        spent.completionTokens = c.completionTokens;
        spent.reasoningTokens = c.reasoningTokens;
        spent.cost = c.policyMeta.value(QStringLiteral("cost")).toDouble();
        m_ledger.charge(spent);
    }
    emit candidateAdded(c); // outside the lock: a direct slot may call back into the engine
}

void SearchEngine::recordEvaluation(const RoundPlan &plan, const Job &job,
                                    const GenerationResult &generation,
                                    const EvaluationResult &result)
{
    const qint64 id = generation.candidate.id;
    EvaluationResult stored = result;
    {
        std::lock_guard lock(m_mutex);
        if (m_remeasured.contains(id))
            stored.duplicateOf = m_remeasured.value(id);
        watchBaseline(generation.candidate.task, stored);
        if (id == 0 || m_store.addEvaluation(id, stored) == 0)
            return;
        m_evaluations.insert(id, stored);
        BudgetUsage spent;
        spent.evals = 1;
        spent.deviceSeconds = evaluationSeconds(result);
        m_ledger.charge(spent);
        if (plan.requests[job.index].memoryEntries > 0)
            recordLesson(job, generation.candidate, result);
    }
    emit candidateEvaluated(id, stored);
}

void SearchEngine::addJudgementHooks(Executor::Hooks &hooks, const RoundPlan &plan)
{
    hooks.reuse = [this, &plan](const Job &job, const GenerationResult &generation) {
        return reuseJudgement(job, generation, plan.requests[job.index].memoryEntries > 0);
    };
    hooks.confirm = [this](const Job &job, const GenerationResult &generation,
                           const EvaluationResult &result) {
        return confirmBest(job, generation, result);
    };
    hooks.settled = [this](const GenerationResult &generation) { settle(generation.candidate.id); };
    hooks.generating = [this](bool started) { m_generating += started ? 1 : -1; };
    hooks.evaluating = [this](bool started) { m_evaluating += started ? 1 : -1; };
}

std::optional<EvaluationResult> SearchEngine::reuseJudgement(const Job &job,
                                                             const GenerationResult &generation,
                                                             bool recordsLessons)
{
    const CandidateRecord &c = generation.candidate;
    const QString key = judgementKey(c);
    EvaluationResult reused;
    {
        std::unique_lock lock(m_mutex);
        const auto first = m_firstOfSource.constFind(key);
        if (first == m_firstOfSource.cend() || first.value() == c.id) {
            m_firstOfSource.insert(key, c.id);
            return std::nullopt;
        }
        const qint64 original = first.value();
        if (!m_config.reusesDuplicates()) {
            m_remeasured.insert(c.id, original);
            return std::nullopt;
        }
        // The original left the queue first: it is being judged (and maybe confirmed) now.
        while (!m_settled.contains(original) && !m_cancel)
            m_settledChanged.wait_for(lock, std::chrono::milliseconds(50));
        const auto judged = m_evaluations.constFind(original);
        // A source the verifier could not judge is judged afresh, not given that non-verdict.
        if (m_cancel || judged == m_evaluations.cend() ||
            judged.value().verdict == Verdict::VerifierError)
            return std::nullopt;
        reused = DuplicateJudgement::of(judged.value(), original);
        if (m_store.addEvaluation(c.id, reused) == 0)
            return std::nullopt;
        m_evaluations.insert(c.id, reused);
        m_settled.insert(c.id);
        // A judgement toward an evaluation budget, though nothing ran: a model that keeps
        // repeating itself still ends its run.
        BudgetUsage spent;
        spent.evals = 1;
        m_ledger.charge(spent);
        m_store.appendEvent(m_runId, QStringLiteral("duplicate"), c.id,
                            {{QStringLiteral("of"), double(original)}});
        // An edit that led back to a known faster kernel is still a lesson about the edit.
        if (recordsLessons)
            recordLesson(job, c, reused);
    }
    emit candidateEvaluated(c.id, reused);
    return reused;
}

std::optional<EvaluationResult> SearchEngine::confirmBest(const Job &job,
                                                          const GenerationResult &generation,
                                                          const EvaluationResult &result)
{
    const CandidateRecord &c = generation.candidate;
    if (!m_config.confirmBest || result.verdict != Verdict::Pass || !result.speedup ||
        !job.request.task)
        return std::nullopt;
    {
        std::lock_guard lock(m_mutex);
        if (*result.speedup <= m_confirmedBest.value(c.task, 0.0))
            return std::nullopt; // not a new best: its judgement stands as measured
    }
    const Task checked = ShapeProposal::forCandidate(*job.request.task, c);
    EvaluationResult confirmed =
        m_evaluator.confirm(checked, job.request.backend, c.source, m_runSecret, m_cancel);
    // The verifier failing on its own side says nothing about the candidate: its judgement
    // stands as measured.
    if (m_cancel || confirmed.verdict == Verdict::VerifierError)
        return std::nullopt;
    confirmed.duplicateOf = result.duplicateOf;
    {
        std::lock_guard lock(m_mutex);
        if (m_remeasured.contains(c.id))
            confirmed.duplicateOf = m_remeasured.value(c.id);
        watchBaseline(c.task, confirmed);
        if (m_store.addEvaluation(c.id, confirmed) == 0)
            return std::nullopt;
        m_evaluations.insert(c.id, confirmed);
        BudgetUsage spent;
        spent.deviceSeconds = evaluationSeconds(confirmed);
        m_ledger.charge(spent);
        if (confirmed.verdict == Verdict::Pass && confirmed.speedup)
            m_confirmedBest[c.task] = std::max(m_confirmedBest.value(c.task), *confirmed.speedup);
        m_store.appendEvent(m_runId, QStringLiteral("best_confirmed"), c.id,
                            {{QStringLiteral("measured"), *result.speedup},
                             {QStringLiteral("confirmed"),
                              confirmed.speedup ? QJsonValue(*confirmed.speedup) : QJsonValue()},
                             {QStringLiteral("verdict"), verdictName(confirmed.verdict)}});
    }
    emit candidateEvaluated(c.id, confirmed);
    return confirmed;
}

void SearchEngine::watchBaseline(const QString &task, EvaluationResult &result)
{
    QList<double> &earlier = m_baselines[task];
    if (const std::optional<CheatFlag> flag = BaselineWatch::check(result, earlier))
        result.flags.append(*flag);
    if (result.baselineMs && *result.baselineMs > 0.0 && !result.duplicateOf)
        earlier.append(*result.baselineMs);
}

QString SearchEngine::judgementKey(const CandidateRecord &candidate) const
{
    // The agents' tester may add shapes to a candidate's checks: the same source checked on other
    // shapes is another judgement.
    const QJsonArray shapes = candidate.policyMeta.value(QStringLiteral("tester_shapes")).toArray();
    return candidate.task + QLatin1Char('\n') +
           SourceFingerprint::of(candidate.source, m_config.backend) + QLatin1Char('\n') +
           QString::fromUtf8(QJsonDocument(shapes).toJson(QJsonDocument::Compact));
}

void SearchEngine::settle(qint64 candidateId)
{
    {
        std::lock_guard lock(m_mutex);
        m_settled.insert(candidateId);
    }
    m_settledChanged.notify_all();
}

void SearchEngine::indexJudgements()
{
    m_firstOfSource.clear();
    m_settled.clear();
    m_confirmedBest.clear();
    m_remeasured.clear();
    m_baselines.clear();
    QList<qint64> ids = m_candidates.keys();
    std::sort(ids.begin(), ids.end());
    for (qint64 id : std::as_const(ids)) {
        const CandidateRecord &c = m_candidates[id];
        const auto judged = m_evaluations.constFind(id);
        if (judged == m_evaluations.cend())
            continue;
        m_settled.insert(id);
        const QString key = judgementKey(c);
        if (!m_firstOfSource.contains(key))
            m_firstOfSource.insert(key, id);
        const EvaluationResult &e = judged.value();
        if (e.baselineMs && *e.baselineMs > 0.0 && !e.duplicateOf)
            m_baselines[c.task].append(*e.baselineMs);
        // A best whose confirmation a crash cut short is no confirmed best.
        if (e.verdict == Verdict::Pass && e.speedup && (e.confirmed || !m_config.confirmBest))
            m_confirmedBest[c.task] = std::max(m_confirmedBest.value(c.task), *e.speedup);
    }
}

void SearchEngine::profileChosen()
{
    const std::optional<RunRecord> run = m_store.run(m_runId);
    if (m_config.profile == QLatin1String("none") || m_cancel || !run)
        return;
    const QMap<qint64, EvaluationResult> judged = m_store.evaluationsForRun(m_runId);
    QList<CandidateRecord> passing;
    QHash<QString, std::pair<qint64, double>> best; // task: candidate, speedup
    for (const CandidateRecord &c : m_store.candidates(m_runId)) {
        const auto e = judged.constFind(c.id);
        if (e == judged.cend() || e->verdict != Verdict::Pass || !e->speedup || e->duplicateOf)
            continue;
        passing << c;
        if (!best.contains(c.task) || *e->speedup > best.value(c.task).second)
            best.insert(c.task, {c.id, *e->speedup});
    }
    for (const CandidateRecord &c : std::as_const(passing)) {
        const bool isBest = best.value(c.task).first == c.id;
        const Task *of = task(c.task);
        if ((!isBest && m_config.profile != QLatin1String("all")) || !of || m_cancel)
            continue;
        ProfileSession::profileStored(m_store, m_evaluator, *run,
                                      ShapeProposal::forCandidate(*of, c), c, secretOf(*run),
                                      isBest, m_cancel);
    }
}

void SearchEngine::recordLesson(const Job &job, const CandidateRecord &child,
                                const EvaluationResult &result)
{
    // The lesson is the child's gain over the parent it was edited from (the first parent).
    if (job.request.parents.isEmpty() || !job.request.task)
        return;
    const CandidateRecord &parent = job.request.parents.first();
    const auto parentResult = m_evaluations.constFind(parent.id);
    if (parentResult == m_evaluations.cend())
        return;
    std::optional<MemoryEntry> lesson = MemoryLesson::fromImprovement(
        *job.request.task, m_config.backend, m_runId, parent, parentResult.value(), child, result);
    if (lesson && m_store.addMemoryEntry(*lesson) > 0)
        m_store.appendEvent(m_runId, QStringLiteral("memory_recorded"), child.id,
                            {{QStringLiteral("entry"), double(lesson->id)},
                             {QStringLiteral("idea"), lesson->idea},
                             {QStringLiteral("gain"), lesson->gain()}});
}

NodeResult SearchEngine::nodeResult(const ExpansionRequest &request,
                                    const CandidateRecord &candidate,
                                    const EvaluationResult *evaluation) const
{
    NodeResult node;
    node.id = candidate.id;
    node.request = request;
    node.generated = candidate.id > 0 && !candidate.source.isEmpty();
    node.reasoningTokens = candidate.reasoningTokens;
    if (evaluation) {
        node.verdict = evaluation->verdict;
        node.correct = evaluation->verdict == Verdict::Pass;
        node.speedup = node.correct ? evaluation->speedup.value_or(0.0) : 0.0;
        node.speedupLow = node.speedupHigh = node.speedup;
        if (node.correct && evaluation->speedupInterval) {
            node.speedupLow = evaluation->speedupInterval->low;
            node.speedupHigh = evaluation->speedupInterval->high;
        }
        node.duplicate = evaluation->duplicateOf.has_value();
        node.rooflineFraction = evaluation->rooflineFraction.value_or(0.0);
    }
    const QJsonObject knobs = candidate.policyMeta.value(QStringLiteral("knobs")).toObject();
    if (!knobs.isEmpty()) {
        node.descriptors = knobs;
    } else {
        // Code features any source has, for MAP-Elites over LLM output.
        const QString &s = candidate.source;
        node.descriptors = {
            {QStringLiteral("lines"), double(s.count(QLatin1Char('\n')) + 1)},
            {QStringLiteral("parallel"),
             s.contains(QLatin1String("#pragma omp")) || s.contains(QLatin1String("std::thread"))},
            {QStringLiteral("shared_memory"), s.contains(QLatin1String("__shared__"))},
            {QStringLiteral("vectorised"), s.contains(QLatin1String("float4")) ||
                                               s.contains(QLatin1String("__m256")) ||
                                               s.contains(QLatin1String("#pragma omp simd"))}};
    }
    return node;
}

void SearchEngine::finishRound(const RoundPlan &plan, const QList<NodeResult> &results)
{
    Strategy *strategy = m_strategies.value(plan.task).get();
    strategy->tell(results);
    int passes = 0;
    double reasoning = 0.0;
    double taskBest = 0.0;
    double taskBestRoofline = 0.0;
    double spent = 0.0;
    for (const NodeResult &r : results) {
        passes += r.correct ? 1 : 0;
        reasoning += double(r.reasoningTokens);
        if (r.speedup > taskBest)
            taskBest = r.speedup, taskBestRoofline = r.rooflineFraction;
        m_bestSpeedup = std::max(m_bestSpeedup, r.speedup);
        const CandidateRecord c = m_candidates.value(r.id);
        switch (m_config.budgetAxis) {
        case BudgetAxis::Samples:
            spent += 1;
            break;
        case BudgetAxis::Evals:
            spent += m_evaluations.contains(r.id) ? 1 : 0;
            break;
        case BudgetAxis::Tokens:
            spent += double(c.promptTokens + c.completionTokens + c.reasoningTokens);
            if (c.promptTokens + c.completionTokens + c.reasoningTokens == 0 &&
                c.policyMeta.value(QStringLiteral("usage_reported")) == false)
                m_uncountedSpend = QStringLiteral("candidate %1 spent tokens its policy did not "
                                                  "report: a tokens budget cannot be kept")
                                       .arg(r.id);
            break;
        case BudgetAxis::Cost:
            spent += c.policyMeta.value(QStringLiteral("cost")).toDouble();
            if (c.policyMeta.value(QStringLiteral("cost_known")) == false)
                m_uncountedSpend = QStringLiteral("candidate %1 has no known cost: a cost budget "
                                                  "cannot be kept")
                                       .arg(r.id);
            break;
        case BudgetAxis::Seconds:
        case BudgetAxis::DeviceSeconds:
            spent +=
                m_evaluations.contains(r.id) ? evaluationSeconds(m_evaluations.value(r.id)) : 0.0;
            break;
        }
    }
    m_allocator->record(plan.task, spent, int(results.size()), passes, reasoning, taskBest,
                        taskBestRoofline);
    std::lock_guard lock(m_mutex);
    m_ledger.endRound(m_bestSpeedup);
}

void SearchEngine::pause()
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = true;
    }
    m_pauseChanged.notify_all();
}

void SearchEngine::resume()
{
    {
        std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_pauseChanged.notify_all();
}

void SearchEngine::cancel()
{
    m_cancel = true;
    {
        std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_pauseChanged.notify_all();
}

qint64 SearchEngine::waitWhilePaused()
{
    if (!m_paused || m_cancel)
        return 0;
    QElapsedTimer paused;
    paused.start();
    m_store.updateRunStatus(m_runId, RunRecord::Status::Paused);
    m_store.appendEvent(m_runId, QStringLiteral("run_paused"));
    {
        std::unique_lock lock(m_mutex);
        m_pauseChanged.wait(lock, [this] { return !m_paused || m_cancel; });
    }
    if (!m_cancel) {
        m_store.updateRunStatus(m_runId, RunRecord::Status::Running);
        m_store.appendEvent(m_runId, QStringLiteral("run_resumed"));
    }
    return paused.nsecsElapsed();
}

} // namespace kiln
