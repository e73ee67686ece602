#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "engine/runconfig.h"
#include "runprogress.h"
#include "tasks/tasklibrary.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QTimer>
#include <atomic>
#include <deque>
#include <mutex>

class QThread;

namespace kiln {

class Evaluator;
class RunStore;
class SearchEngine;

// Drives one search run on a worker thread of its own, the way hotspot drives its parser: the
// engine works there, and what it reports reaches this object's thread as queued signals that
// carry value types and the run id (so a view showing another run can drop them); progress is
// reported four times a second, however fast results come. pause(),
// resume() and stop() are safe at any moment, also before the engine exists; stop() lets the
// round in flight end within about a second (sandboxes are killed) and leaves the run
// resumable. The store and the evaluator are shared with the workspace's other runs.
class RunController : public QObject
{
    Q_OBJECT

public:
    enum class State
    {
        Queued,   // waiting for a free place among the live runs
        Starting, // the engine is being set up
        Running,
        Paused,
        Stopping,
        Finished,  // the budget, a target or a plateau ended it
        Cancelled, // stopped; resumable
        Failed     // could not start (bad configuration, unknown run, ...)
    };
    Q_ENUM(State)

    // A new run of `config` (resumeRunId 0), or the continuation of a stored run.
    RunController(RunStore &store, Evaluator &evaluator, TaskLibrary tasks, RunConfig config,
                  qint64 resumeRunId, QStringList devices, QObject *parent = nullptr);
    ~RunController() override; // stops the run and waits for its thread

    void start();
    void pause();
    void resume();
    void stop();
    // Waits for the worker thread to end (after stop() or the run's natural end).
    bool wait(int timeoutMs);

    State state() const { return m_state; }
    bool isLive() const;
    qint64 runId() const { return m_runId; }
    const RunConfig &config() const { return m_config; }
    RunProgress progress() const { return m_progress; }
    QString stopReason() const { return m_stopReason; }
    QString error() const { return m_error; }

signals:
    void started(qint64 runId);
    void candidateAdded(qint64 runId, const kiln::CandidateRecord &candidate);
    void candidateEvaluated(qint64 runId, qint64 candidateId, const kiln::EvaluationResult &result);
    void candidatesEvicted(qint64 runId, const QList<qint64> &candidateIds);
    void progressed(qint64 runId, const kiln::RunProgress &progress);
    void finished(qint64 runId, const QString &reason);
    void failed(qint64 runId, const QString &error);
    void stateChanged(kiln::RunController::State state);

private:
    void work(); // the worker thread
    void connectEngine(SearchEngine &engine);
    void setState(State state);
    void onStarted(qint64 runId, const RunConfig &config);
    void onEvaluated(qint64 candidateId, const EvaluationResult &result);
    void onUsage(const BudgetUsage &used);
    void onEnded(const QString &reason, bool cancelled);
    void onFailed(const QString &error);
    void sampleActivity();

    RunStore &m_store;
    Evaluator &m_evaluator;
    TaskLibrary m_tasks; // the engine keeps a reference: it lives as long as this object
    RunConfig m_config;
    qint64 m_resumeRunId;
    QThread *m_thread = nullptr;

    std::mutex m_engineMutex; // guards m_engine against its end on the worker thread
    SearchEngine *m_engine = nullptr;
    std::atomic<bool> m_stopRequested{false};
    std::atomic<bool> m_pauseRequested{false};

    State m_state = State::Queued;
    qint64 m_runId = 0;
    RunProgress m_progress;
    QString m_stopReason;
    QString m_error;
    std::deque<qint64> m_recentEvaluations; // ms since start, for evaluations per second
    QElapsedTimer m_clock;
    QTimer m_activityTimer;
};

} // namespace kiln
