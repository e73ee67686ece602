#include "runcontroller.h"

#include "engine/searchsession.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QThread>

namespace kiln {

namespace {

constexpr qint64 rateWindowMs = 10000; // evaluations per second over this window
constexpr int activityIntervalMs = 250;

} // namespace

RunController::RunController(RunStore &store, Evaluator &evaluator, TaskLibrary tasks,
                             RunConfig config, qint64 resumeRunId, QStringList devices,
                             QObject *parent)
    : QObject(parent), m_store(store), m_evaluator(evaluator), m_tasks(std::move(tasks)),
      m_config(std::move(config)), m_resumeRunId(resumeRunId), m_runId(resumeRunId)
{
    qRegisterMetaType<CandidateRecord>();
    qRegisterMetaType<EvaluationResult>();
    qRegisterMetaType<RunProgress>();
    qRegisterMetaType<BudgetUsage>();
    qRegisterMetaType<QList<qint64>>();
    m_progress.axis = m_config.budgetAxis;
    m_progress.budget = m_config.budget;
    m_progress.devices = std::move(devices);
    m_activityTimer.setInterval(activityIntervalMs);
    connect(&m_activityTimer, &QTimer::timeout, this, &RunController::sampleActivity);
}

RunController::~RunController()
{
    stop();
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

bool RunController::isLive() const
{
    return m_state == State::Starting || m_state == State::Running || m_state == State::Paused ||
           m_state == State::Stopping;
}

void RunController::start()
{
    if (m_thread)
        return;
    m_clock.start();
    setState(State::Starting);
    m_thread = QThread::create([this] { work(); });
    m_thread->setObjectName(QStringLiteral("kiln-run"));
    m_thread->start();
    m_activityTimer.start();
}

void RunController::pause()
{
    std::lock_guard lock(m_engineMutex);
    m_pauseRequested = true;
    if (m_engine)
        m_engine->pause();
    if (m_state == State::Running)
        setState(State::Paused);
}

void RunController::resume()
{
    std::lock_guard lock(m_engineMutex);
    m_pauseRequested = false;
    if (m_engine)
        m_engine->resume();
    if (m_state == State::Paused)
        setState(State::Running);
}

void RunController::stop()
{
    {
        std::lock_guard lock(m_engineMutex);
        m_stopRequested = true;
        if (m_engine)
            m_engine->cancel();
    }
    if (m_state == State::Queued) {
        setState(State::Cancelled);
        emit finished(m_runId, QStringLiteral("cancelled before it started"));
    } else if (isLive()) {
        setState(State::Stopping);
    }
}

bool RunController::wait(int timeoutMs)
{
    if (!m_thread)
        return true;
    if (!m_thread->wait(QDeadlineTimer(timeoutMs)))
        return false;
    // The worker's last reports are queued to this thread: take them now, so the state says
    // the run has ended as soon as wait() returns.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    return true;
}

void RunController::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

// The worker thread: set the engine up, run it to its end, report.
void RunController::work()
{
    QString error;
    std::unique_ptr<SearchSession> session =
        m_resumeRunId > 0
            ? SearchSession::resume(m_store, m_tasks, m_evaluator, m_resumeRunId, &error)
            : SearchSession::create(m_store, m_tasks, m_evaluator, m_config, &error);
    if (!session) {
        QMetaObject::invokeMethod(
            this, [this, error] { onFailed(error); }, Qt::QueuedConnection);
        return;
    }
    SearchEngine &engine = session->engine();
    connectEngine(engine);
    const qint64 runId = session->runId();
    const RunConfig config = session->config();
    {
        std::lock_guard lock(m_engineMutex);
        m_engine = &engine;
        if (m_pauseRequested)
            engine.pause();
        if (m_stopRequested)
            engine.cancel();
    }
    QMetaObject::invokeMethod(
        this, [this, runId, config] { onStarted(runId, config); }, Qt::QueuedConnection);
    const QString reason = engine.run();
    const BudgetUsage used = engine.used();
    const bool cancelled = m_stopRequested.load();
    {
        std::lock_guard lock(m_engineMutex);
        m_engine = nullptr;
    }
    QMetaObject::invokeMethod(
        this,
        [this, reason, used, cancelled] {
            onUsage(used);
            onEnded(reason, cancelled);
        },
        Qt::QueuedConnection);
}

void RunController::connectEngine(SearchEngine &engine)
{
    const qint64 runId = engine.runId();
    connect(
        &engine, &SearchEngine::candidateAdded, this,
        [this, runId](const CandidateRecord &c) { emit candidateAdded(runId, c); },
        Qt::QueuedConnection);
    connect(
        &engine, &SearchEngine::candidateEvaluated, this,
        [this](qint64 id, const EvaluationResult &r) { onEvaluated(id, r); }, Qt::QueuedConnection);
    connect(
        &engine, &SearchEngine::candidatesEvicted, this,
        [this, runId](const QList<qint64> &ids) { emit candidatesEvicted(runId, ids); },
        Qt::QueuedConnection);
    // The ledger is read where the engine works, so this thread never waits on its lock.
    auto postUsage = [this, &engine] {
        const BudgetUsage used = engine.used();
        QMetaObject::invokeMethod(
            this, [this, used] { onUsage(used); }, Qt::QueuedConnection);
    };
    connect(&engine, &SearchEngine::candidateAdded, &engine, postUsage, Qt::DirectConnection);
    connect(&engine, &SearchEngine::candidateEvaluated, &engine, postUsage, Qt::DirectConnection);
    connect(&engine, &SearchEngine::progress, &engine, postUsage, Qt::DirectConnection);
}

void RunController::onStarted(qint64 runId, const RunConfig &config)
{
    m_runId = runId;
    m_config = config;
    m_progress.axis = config.budgetAxis;
    m_progress.budget = config.budget;
    if (m_state == State::Starting)
        setState(m_pauseRequested ? State::Paused : State::Running);
    emit started(runId);
}

void RunController::onEvaluated(qint64 candidateId, const EvaluationResult &result)
{
    m_recentEvaluations.push_back(m_clock.elapsed());
    if (result.verdict == Verdict::Pass && result.speedup)
        m_progress.bestSpeedup = std::max(m_progress.bestSpeedup, *result.speedup);
    emit candidateEvaluated(m_runId, candidateId, result);
}

void RunController::onUsage(const BudgetUsage &used)
{
    m_progress.used = used; // reported with the next activity sample, four times a second
}

void RunController::sampleActivity()
{
    {
        std::lock_guard lock(m_engineMutex);
        const SearchEngine::Activity activity =
            m_engine ? m_engine->activity() : SearchEngine::Activity();
        m_progress.generating = activity.generating;
        m_progress.evaluating = activity.evaluating;
    }
    const qint64 now = m_clock.elapsed();
    while (!m_recentEvaluations.empty() && m_recentEvaluations.front() < now - rateWindowMs)
        m_recentEvaluations.pop_front();
    const double window = double(std::min(now, rateWindowMs)) / 1000.0;
    m_progress.evaluationsPerSecond =
        window > 0.25 ? double(m_recentEvaluations.size()) / window : 0.0;
    emit progressed(m_runId, m_progress);
}

void RunController::onEnded(const QString &reason, bool cancelled)
{
    m_activityTimer.stop();
    m_stopReason = reason;
    m_progress.generating = 0;
    m_progress.evaluating = 0;
    m_progress.evaluationsPerSecond = 0.0;
    setState(cancelled ? State::Cancelled : State::Finished);
    emit progressed(m_runId, m_progress);
    emit finished(m_runId, reason);
}

void RunController::onFailed(const QString &error)
{
    m_activityTimer.stop();
    m_error = error;
    setState(State::Failed);
    emit failed(m_runId, error);
}

} // namespace kiln
