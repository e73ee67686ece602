#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/runrecord.h"
#include "engine/budget/budgetallocator.h"
#include "engine/budget/budgetledger.h"
#include "engine/evaluator.h"
#include "engine/executor.h"
#include "engine/runconfig.h"
#include "policies/policy.h"
#include "strategy/strategy.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace kiln {

class RunStore;
class TaskLibrary;
struct Task;

// The ask/tell loop: strategies decide, the executor generates and verifies, the store records
// every state change as it happens. One SearchEngine drives one run; it blocks in run() (call it
// on a worker thread) and reports through signals, which are safe to connect across threads.
class SearchEngine : public QObject
{
    Q_OBJECT

public:
    using StrategyMaker = std::function<std::unique_ptr<Strategy>(const QString &name)>;

    SearchEngine(RunStore &store, const TaskLibrary &tasks, Policy &policy, Evaluator &evaluator,
                 StrategyMaker makeStrategy, QObject *parent = nullptr);
    ~SearchEngine() override;

    // Creates a new run in the store; returns its id, or 0 with *error set.
    qint64 create(const RunConfig &config, QString *error);
    // Loads a run (new or interrupted) and replays its recorded rounds into fresh strategies;
    // false with *error when the run is unknown or cannot be replayed.
    bool load(qint64 runId, QString *error);
    // Runs until a budget, target or plateau stops it, or cancel() (also one called before
    // run(), so a stop that races the start is never lost). Returns the stop reason.
    QString run();

    // Safe from any thread. A pause takes effect once the round in flight is done; the engine's
    // own thread records it (status and event), so a caller never waits on the store.
    void pause();
    void resume();
    void cancel(); // cooperative; in-flight sandboxes are killed promptly
    bool isPaused() const { return m_paused; }
    // Policy calls and evaluations in flight right now (any thread).
    struct Activity
    {
        int generating = 0;
        int evaluating = 0;
    };
    Activity activity() const { return {m_generating.load(), m_evaluating.load()}; }
    qint64 runId() const { return m_runId; }
    // The verifier's secret of a stored run (never shown to a policy), so candidates added to a
    // run later — by hand, or after a resume — are checked on the same inputs.
    static quint64 secretOf(const RunRecord &run);
    // A new run's secret: from --verifier-seed when given, else from the OS.
    static quint64 newSecret(const std::optional<quint64> &verifierSeed);
    const RunConfig &config() const { return m_config; }
    BudgetUsage used() const;

signals:
    void candidateAdded(const kiln::CandidateRecord &candidate);
    void candidateEvaluated(qint64 candidateId, const kiln::EvaluationResult &result);
    void progress(const kiln::BudgetUsage &used, double bestSpeedup);
    // Candidates a strategy dropped from its population (kept in the tree as ghosts).
    void candidatesEvicted(const QList<qint64> &candidateIds);
    void finished(const QString &reason);

private:
    struct RoundPlan
    {
        int round = 0;
        QString task;
        QList<ExpansionRequest> requests;
        qint64 firstIndex = 0;
    };
    bool setUp(QString *error);
    bool replay(QString *error);
    // The stored candidates and judgements, with the budget they spent; returns each
    // candidate's id by sample index.
    QHash<qint64, qint64> loadStoredJudgements();
    // A recorded round asked again of its strategy, which must ask what it asked then.
    std::optional<RoundPlan> replayedPlan(int round, const QJsonObject &payload, QString *error);
    QString runRounds();
    // The next rounds, of different tasks (tasks_at_once of them at most), planned and recorded
    // in the allocator's order; empty when every task is done or the budget has nothing left.
    QList<RoundPlan> planRounds();
    // Runs the rounds at once, each on a thread of its own; their results in plan order.
    QList<QList<NodeResult>> executeRounds(const QList<RoundPlan> &plans);
    // Numbers a new round and records its start.
    RoundPlan startRound(const QString &taskName, const QList<ExpansionRequest> &requests,
                         int maxRequests);
    // Tells the strategy and records the round's end (evictions, best, budget).
    void persistRound(const RoundPlan &plan, const QList<NodeResult> &results);
    QList<NodeResult> executeRound(const RoundPlan &plan);
    QList<Job> roundJobs(const RoundPlan &plan) const;
    // The executor's hooks that store a candidate and its judgement as soon as they exist.
    void recordCandidate(const RoundPlan &plan, const Job &job, GenerationResult &generation);
    void recordEvaluation(const RoundPlan &plan, const Job &job, const GenerationResult &generation,
                          const EvaluationResult &result);
    void finishRound(const RoundPlan &plan, const QList<NodeResult> &results);
    NodeResult nodeResult(const ExpansionRequest &request, const CandidateRecord &candidate,
                          const EvaluationResult *evaluation) const;
    GenerationRequest generationRequest(const RoundPlan &plan, int index,
                                        const QList<MemoryEntry> &memory) const;
    // Duplicates, confirmation and the in-flight counters, for the executor.
    void addJudgementHooks(Executor::Hooks &hooks, const RoundPlan &plan);
    // A duplicate's judgement: the earlier identical source's, once that one is settled (empty:
    // judge it, as the first of its kind or under duplicates=remeasure).
    std::optional<EvaluationResult>
    reuseJudgement(const Job &job, const GenerationResult &generation, bool recordsLessons);
    // The re-measurement of a judgement that would make its candidate the task's best.
    std::optional<EvaluationResult> confirmBest(const Job &job, const GenerationResult &generation,
                                                const EvaluationResult &result);
    void settle(qint64 candidateId);
    // What makes two candidates one judgement: task, normalised source and the tester's shapes.
    QString judgementKey(const CandidateRecord &candidate) const;
    // Adds baseline_outlier when the reference's time stands out against this run's earlier
    // judgements of the task, and keeps it for the next (caller holds m_mutex).
    void watchBaseline(const QString &task, EvaluationResult &result);
    // Fingerprints, settled candidates and confirmed bests of the stored run (replay).
    void indexJudgements();
    // Stores the lesson of an improvement in the optimisation memory (caller holds m_mutex).
    void recordLesson(const Job &job, const CandidateRecord &child, const EvaluationResult &result);
    // --param profile: hardware profiles of the run's best (or every passing) candidates, once
    // its rounds are done; each task's best with its reference beside it.
    void profileChosen();
    // Requests a round of the task may make, with `reserved` requests of rounds planned beside
    // it not yet spent.
    int startable(const QString &task, int reserved = 0) const;
    double axisCost(const QList<NodeResult> &results, const BudgetUsage &before) const;
    const Task *task(const QString &name) const;
    qint64 waitWhilePaused(); // nanoseconds spent paused

    RunStore &m_store;
    const TaskLibrary &m_tasks;
    // The run's copies of its KernelBench tasks, with the run's kernel language on them.
    mutable std::map<QString, std::unique_ptr<Task>> m_languageTasks;
    Policy &m_policy;
    Evaluator &m_evaluator;
    StrategyMaker m_makeStrategy;

    qint64 m_runId = 0;
    RunConfig m_config;
    quint64 m_runSecret = 0;
    QHash<QString, std::shared_ptr<Strategy>> m_strategies; // one per task
    std::unique_ptr<BudgetAllocator> m_allocator;
    BudgetLedger m_ledger;
    double m_storedWallSeconds = 0.0;
    QHash<qint64, CandidateRecord> m_candidates;
    QHash<qint64, EvaluationResult> m_evaluations;
    int m_nextRound = 0;
    qint64 m_nextIndex = 0;
    double m_bestSpeedup = 0.0;
    // Why the budget cannot be counted (a candidate whose policy reported no usage on a tokens
    // or cost axis: a coding agent's unknown format, a model without a price); empty while it can.
    QString m_uncountedSpend;
    // Duplicates and confirmation (guarded by m_mutex): the first candidate of each task and
    // normalised source; candidates whose judgement is final; each task's best judgement that
    // needs no confirmation any more; duplicates judged afresh under duplicates=remeasure.
    QHash<QString, qint64> m_firstOfSource;
    QSet<qint64> m_settled;
    QHash<QString, double> m_confirmedBest;
    QHash<qint64, qint64> m_remeasured;
    QHash<QString, QList<double>> m_baselines; // each task's baseline times so far (ms)
    std::condition_variable m_settledChanged;
    QList<RoundPlan> m_interrupted; // the rounds a crash cut short, to finish first

    mutable std::mutex m_mutex; // guards the maps and the ledger against worker-thread hooks
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_paused{false};
    std::atomic<int> m_generating{0};
    std::atomic<int> m_evaluating{0};
    std::condition_variable m_pauseChanged;
};

} // namespace kiln
