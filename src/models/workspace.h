#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "engine/manualsubmission.h"
#include "engine/runarguments.h"
#include "tasks/tasklibrary.h"
#include "verifier/harness/cudadevices.h"

#include <QFuture>
#include <QList>
#include <QObject>
#include <QPointer>
#include <atomic>
#include <functional>
#include <memory>

namespace kiln {

class Evaluator;
class RunController;
class RunStore;
class SlurmEvaluator;
class VerifierEvaluator;

// The writing side of one workspace database in the window: its single writer connection, one
// verifier shared by every run it starts (one sandbox pool for the CPU sized to the machine, one
// persistent sandbox per GPU), the run controllers (several may be live at once; more than
// maxLiveRuns wait in a queue), and hand-written candidates judged in the background.
class Workspace : public QObject
{
    Q_OBJECT

public:
    explicit Workspace(QObject *parent = nullptr);
    ~Workspace() override; // stops what runs and waits for it

    // Opens (creating) the database for writing. Refused while runs of another database are
    // live or manual candidates are being judged.
    bool open(const QString &path, QString *error);
    bool isOpen() const { return m_store != nullptr; }
    QString path() const { return m_path; }
    RunStore *store() const { return m_store.get(); }
    const TaskLibrary &tasks() const { return m_tasks; }
    // The CPU sandboxes shared by every run, and the GPUs (probed once, in the background).
    int sandboxes() const;
    CudaAvailability gpus();

    // A new run (started now, or queued behind the live ones), or the continuation of a stored
    // run that was stopped. nullptr with *error when the database is not open.
    RunController *startRun(const RunArguments::Parsed &arguments, QString *error);
    RunController *resumeRun(qint64 runId, QString *error);
    RunController *controllerFor(qint64 runId) const;
    QList<RunController *> controllers() const;
    bool hasLiveRuns() const;
    void setMaxLiveRuns(int count);
    // Runs started from now on are judged by `evaluator` instead of the verifier (the GUI
    // benchmark replays recorded verdicts at a set pace with it); nullptr: the verifier again.
    // The evaluator must outlive those runs.
    void useEvaluator(Evaluator *evaluator);
    // Stops every run and waits up to timeoutMs in all; true when every worker ended in time.
    bool stopAll(int timeoutMs);

    // Judges a hand-written candidate in the background as a node of a run (ticket returned;
    // manualStored, then manualFinished follow) ...
    int submit(const ManualSubmission::Request &request);
    // ... or on its own, stored as a one-candidate evaluation run.
    int evaluateAlone(const QString &task, Backend backend, const QString &source,
                      const QString &origin);
    bool hasManualWork() const { return m_manualInFlight > 0; }
    // `kiln-cli rejudge` in the background: a run's candidates judged again by the strict
    // verifier into a new run (the leaky-verifier lesson from the window); rejudged follows.
    int rejudgeStrictly(qint64 runId);
    // `kiln-cli profile` in the background: the candidate and its task's reference under Nsight
    // Compute, stored as profiles of the candidate; profiled follows.
    int profileCandidate(qint64 candidateId);

signals:
    void runAdded(kiln::RunController *controller);
    // The writer connection is about to be replaced by another database's: whoever holds
    // store() (the memory dialog) lets it go now.
    void storeReplacing();
    void manualStored(int ticket, const kiln::CandidateRecord &candidate);
    void manualFinished(int ticket, bool ok, const kiln::CandidateRecord &candidate,
                        const kiln::EvaluationResult &result, const QString &error);
    // newRunId 0: it failed, error says why; changed: candidates whose verdict differs.
    void rejudged(int ticket, qint64 runId, qint64 newRunId, int changed, const QString &error);
    // error: why nothing was stored (no such candidate); a failed profile is stored with why.
    void profiled(int ticket, qint64 candidateId, const QString &error);

private:
    RunController *addController(RunController *controller);
    // The evaluator of a run: the shared verifier, the lenient one, or worker jobs on a Slurm
    // cluster (one per run, shut down when it ends); nullptr with *error when Slurm refuses.
    Evaluator *evaluatorFor(const RunConfig &config, QString *error);
    RunController *addRun(const RunConfig &config, TaskLibrary tasks, qint64 runId, QString *error);
    void startQueued();
    // `job` on a worker thread (the database is kept open meanwhile), then `done` on this one.
    void inBackground(const std::function<void()> &job, const std::function<void()> &done);
    QStringList deviceNames(Backend backend);
    int runManual(const std::function<std::optional<ManualSubmission::Outcome>(
                      const std::function<void(const CandidateRecord &)> &, QString *)> &job);

    std::unique_ptr<RunStore> m_store;
    QString m_path;
    TaskLibrary m_tasks;
    std::unique_ptr<VerifierEvaluator> m_evaluator;
    std::unique_ptr<VerifierEvaluator> m_lenientEvaluator;            // for --verifier lenient runs
    Evaluator *m_runEvaluator = nullptr;                              // what searches are judged by
    std::vector<std::unique_ptr<SlurmEvaluator>> m_clusterEvaluators; // --executor slurm runs
    QFuture<CudaAvailability> m_gpuProbe;
    QList<QPointer<RunController>> m_controllers;
    int m_maxLiveRuns = 4;
    int m_nextTicket = 1;
    std::atomic<int> m_manualInFlight{0};
    std::shared_ptr<std::atomic<bool>> m_cancelManual;
    QList<QFuture<void>> m_manualJobs;
};

} // namespace kiln
