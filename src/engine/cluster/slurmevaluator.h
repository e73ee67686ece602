#pragma once

#include "engine/cluster/slurmclient.h"
#include "engine/cluster/slurmsettings.h"
#include "engine/cluster/spooldirectory.h"
#include "engine/evaluator.h"

#include <QElapsedTimer>
#include <QMap>
#include <QSet>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kiln {

// Evaluations on a Slurm cluster (docs/cluster.md). The engine's executor still generates and
// schedules; each evaluation becomes a work item in a spool session folder, and `kiln-cli
// worker` jobs started with sbatch take items, run the verifier on their node and put back the
// result. A monitor thread collects results, asks squeue which workers are still there, puts
// the items of a worker that left (killed, preempted, node failure) back in the queue, and keeps
// up to maxJobs workers while there is work. Each item's first result is the one that counts.
class SlurmEvaluator : public Evaluator
{
public:
    // A lost item is tried this many times before it is reported as lost.
    static constexpr int kMaxAttempts = 3;
    // Worker jobs in a row that end without starting (or cannot start), or sbatch failures in a
    // row, before the run is stopped: the cluster cannot run Kiln's workers as set up.
    static constexpr int kMaxFailuresInARow = 3;

    SlurmEvaluator(SlurmSettings settings, QString workerProgram, QString spoolRoot, bool lenient);
    ~SlurmEvaluator() override;
    SlurmEvaluator(const SlurmEvaluator &) = delete;
    SlurmEvaluator &operator=(const SlurmEvaluator &) = delete;

    // Creates the session folder and asks sbatch --test-only whether the settings can submit.
    bool start(QString *error);
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel) override;
    // Two items per worker job: the next one waits in the spool while the current one runs.
    int concurrency() const override { return 2 * m_settings.maxJobs; }

    // Called (from the monitor thread) when workers cannot be submitted at all; the run should
    // stop (and stays resumable). Lines for a log go to the event handler.
    void setFatalHandler(std::function<void(const QString &)> handler);
    void setEventHandler(std::function<void(const QString &)> handler);
    // Cancels every worker job and ends the monitor; the destructor does it too.
    void shutdown();

    QString sessionFolder() const { return m_spool.root(); }
    int submittedJobs() const;
    int requeuedItems() const;
    int droppedResults() const; // second answers for requeued items, answers nobody waited for

private:
    struct Pending
    {
        WorkItem item;
        std::optional<WorkResult> result;
        QString failure; // set when the item cannot be evaluated on the cluster
        int attempts = 1;
        QElapsedTimer posted;
    };

    void monitor();
    void collectResults();
    void acceptResult(const WorkResult &result);
    void retry(const QString &id, const QString &why);
    void pollJobs();
    void noteState(const QString &job, const SlurmClient::JobState &state);
    void jobLeft(const QString &job, const SlurmClient::JobState &state);
    void sweepOrphans();
    void requeueClaims(const QString &job, const QString &why);
    void submitWorkers();
    void countFailure(const QString &why);
    void failAll(const QString &why, bool fatal);
    void event(const QString &line, bool trouble = false);
    bool publish(const Task &task, QString *error);
    QString workerLogTail(const QString &job) const;
    QString jobName() const;
    EvaluationResult finish(const Pending &pending, const Task &task, Backend backend);
    static EvaluationResult notJudged(Backend backend, const QString &why);

    SlurmSettings m_settings;
    QString m_workerProgram;
    SpoolDirectory m_spool;
    QString m_script;
    bool m_lenient = false;

    std::mutex m_publishMutex; // task copies, outside m_mutex: they may be slow
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    QMap<QString, Pending> m_pending;
    QMap<QString, SlurmClient::JobState> m_jobs; // ours, as squeue last listed them
    QSet<QString> m_published;
    quint64 m_nextId = 1;
    int m_submitted = 0;
    int m_failuresInARow = 0;     // sbatch failures and jobs that never became workers
    QElapsedTimer m_sinceFailure; // sbatch is not asked again sooner than a back-off
    int m_requeued = 0;
    int m_dropped = 0;
    bool m_stopping = false;
    bool m_troubled = false; // a job lost work or a tool failed: the folder is kept
    bool m_wakeMonitor = false;
    QString m_fatal;
    std::function<void(const QString &)> m_onFatal;
    std::function<void(const QString &)> m_onEvent;
    std::thread m_monitor;
};

} // namespace kiln
