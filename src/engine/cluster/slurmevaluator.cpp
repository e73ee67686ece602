#include "engine/cluster/slurmevaluator.h"

#include "engine/shapeproposal.h"

#include "tasks/task.h"
#include "verifier/harness/evaluationrecorder.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QThread>

namespace kiln {

namespace {

constexpr int kMonitorTickMs = 50; // how soon a result in done/ is seen
constexpr qint64 kQueuePollMs = 1000;
constexpr qint64 kSubmitBackOffMs = 2000;
// How long an evaluation that failed with the run waits for the engine's cancel, so that the
// executor drops it instead of storing it as a verdict.
constexpr int kFatalGraceMs = 10000;

// Pending reasons that waiting does not cure: the job is cancelled and counted as a failure.
bool cannotStart(const QString &reason)
{
    static const QStringList permanent{
        QStringLiteral("JobHeldAdmin"),       QStringLiteral("JobHeldUser"),
        QStringLiteral("PartitionNodeLimit"), QStringLiteral("PartitionTimeLimit"),
        QStringLiteral("InvalidAccount"),     QStringLiteral("InvalidQOS"),
        QStringLiteral("BadConstraints"),     QStringLiteral("DependencyNeverSatisfied")};
    return permanent.contains(reason);
}

// Slurm's own requeue states: the job's processes are gone and it waits to start again.
bool waitingAgain(const QString &state)
{
    return state == QLatin1String("PENDING") || state.startsWith(QLatin1String("REQUEUE"));
}

QString shellQuoted(const QString &word)
{
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString sessionName()
{
    return QStringLiteral("session-%1-%2")
        .arg(QCoreApplication::applicationPid())
        .arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
}

} // namespace

SlurmEvaluator::SlurmEvaluator(SlurmSettings settings, QString workerProgram, QString spoolRoot,
                               bool lenient)
    : m_settings(std::move(settings)), m_workerProgram(std::move(workerProgram)),
      m_spool(QDir(spoolRoot).filePath(sessionName())), m_lenient(lenient)
{
}

SlurmEvaluator::~SlurmEvaluator()
{
    shutdown();
}

QString SlurmEvaluator::jobName() const
{
    // One name per session: scancel --name finds a job even when sbatch's answer was lost.
    return QStringLiteral("kiln-") + QFileInfo(m_spool.root()).fileName();
}

bool SlurmEvaluator::start(QString *error)
{
    if (const QString problem = m_settings.problem(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    if (!m_spool.prepare(error))
        return false;
    m_script = m_spool.path(QStringLiteral("worker.sh"));
    QFile script(m_script);
    const QString text =
        QStringLiteral("#!/bin/sh\n# A Kiln worker: evaluates work items of this spool session.\n"
                       "exec %1 worker --spool %2 --idle-exit %3\n")
            .arg(shellQuoted(m_workerProgram), shellQuoted(m_spool.root()))
            .arg(m_settings.idleExitSeconds);
    if (!script.open(QIODevice::WriteOnly) || script.write(text.toUtf8()) < 0) {
        *error = QStringLiteral("cannot write %1").arg(m_script);
        return false;
    }
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    if (!SlurmClient::test(m_settings.sbatchOptions(jobName()), m_script, error)) {
        *error = QStringLiteral("Slurm would not run Kiln's workers: ") + *error;
        QDir(m_spool.root()).removeRecursively();
        return false;
    }
    m_monitor = std::thread([this] { monitor(); });
    event(QStringLiteral("spool session %1").arg(m_spool.root()));
    return true;
}

void SlurmEvaluator::setFatalHandler(std::function<void(const QString &)> handler)
{
    std::lock_guard lock(m_mutex);
    m_onFatal = std::move(handler);
}

void SlurmEvaluator::setEventHandler(std::function<void(const QString &)> handler)
{
    std::lock_guard lock(m_mutex);
    m_onEvent = std::move(handler);
}

void SlurmEvaluator::event(const QString &line, bool trouble)
{
    std::function<void(const QString &)> handler;
    {
        std::lock_guard lock(m_mutex);
        handler = m_onEvent;
        m_troubled = m_troubled || trouble;
    }
    QFile log(m_spool.path(QStringLiteral("logs/engine.log")));
    if (log.open(QIODevice::Append))
        log.write((QDateTime::currentDateTime().toString(Qt::ISODateWithMs) + QLatin1Char(' ') +
                   line + QLatin1Char('\n'))
                      .toUtf8());
    if (handler)
        handler(line);
}

int SlurmEvaluator::submittedJobs() const
{
    std::lock_guard lock(m_mutex);
    return m_submitted;
}

int SlurmEvaluator::requeuedItems() const
{
    std::lock_guard lock(m_mutex);
    return m_requeued;
}

int SlurmEvaluator::droppedResults() const
{
    std::lock_guard lock(m_mutex);
    return m_dropped;
}

bool SlurmEvaluator::publish(const Task &task, QString *error)
{
    std::lock_guard lock(m_publishMutex);
    if (m_published.contains(task.name))
        return true;
    if (!m_spool.publishTask(task, error))
        return false;
    m_published.insert(task.name);
    return true;
}

EvaluationResult SlurmEvaluator::notJudged(Backend backend, const QString &why)
{
    EvaluationResult result; // like a refusal of the verifier: the summary says why
    result.backend = backend;
    result.summary = why;
    return result;
}

EvaluationResult SlurmEvaluator::evaluate(const Task &task, Backend backend, const QString &source,
                                          quint64 runSecret, const std::atomic<bool> &cancel)
{
    QString error;
    if (!publish(task, &error))
        return notJudged(backend, error);
    WorkItem item;
    {
        std::lock_guard lock(m_mutex);
        if (!m_fatal.isEmpty() || m_stopping)
            return notJudged(backend, m_fatal.isEmpty()
                                          ? QStringLiteral("the cluster executor stopped")
                                          : m_fatal);
        item = WorkItem{QStringLiteral("e%1").arg(m_nextId++, 8, 10, QLatin1Char('0')),
                        task.name,
                        backend,
                        source,
                        runSecret,
                        m_lenient,
                        ShapeProposal::toJson(ShapeProposal::added(task)),
                        task.candidateLanguage};
        Pending &pending = m_pending[item.id];
        pending.item = item;
        pending.posted.start();
    }
    const bool posted = m_spool.post(item, &error); // outside the lock: a shared filesystem
    std::unique_lock lock(m_mutex);
    if (!posted) {
        m_pending.remove(item.id);
        return notJudged(backend, error);
    }
    m_wakeMonitor = true;
    m_changed.notify_all();
    for (;;) {
        const Pending &p = m_pending[item.id];
        if (p.result || !p.failure.isEmpty())
            break;
        if (cancel) {
            m_spool.withdraw(item.id); // a claimed copy is finished and then ignored
            m_pending.remove(item.id);
            return notJudged(backend, QStringLiteral("cancelled"));
        }
        m_changed.wait_for(lock, std::chrono::milliseconds(100));
    }
    const Pending done = m_pending.take(item.id);
    const bool runFailed = !done.result && !m_fatal.isEmpty();
    lock.unlock();
    if (runFailed) { // the run is being stopped: the executor must see its cancel first
        QElapsedTimer grace;
        grace.start();
        while (!cancel && grace.elapsed() < kFatalGraceMs)
            QThread::msleep(20);
    }
    return finish(done, task, backend);
}

EvaluationResult SlurmEvaluator::finish(const Pending &pending, const Task &task, Backend backend)
{
    if (!pending.result)
        return notJudged(backend, pending.failure);
    const WorkResult &r = *pending.result;
    EvaluationResult result = r.evaluation;
    const double roundTripMs = pending.posted.nsecsElapsed() / 1e6;
    QString where = QStringLiteral("node %1, job %2").arg(r.node, r.job);
    if (!r.gpus.isEmpty())
        where += QStringLiteral(", GPU %1").arg(r.gpus);
    if (pending.attempts > 1)
        where += QStringLiteral(", attempt %1").arg(pending.attempts);
    // ms 0: the verifier's own stages already count the evaluation's device time.
    EvaluationRecorder::addStage(result, QStringLiteral("cluster"), true, 0.0, where,
                                 {{QStringLiteral("node"), r.node},
                                  {QStringLiteral("job"), r.job},
                                  {QStringLiteral("gpus"), r.gpus},
                                  {QStringLiteral("task"), task.name},
                                  {QStringLiteral("attempts"), pending.attempts},
                                  {QStringLiteral("worker_ms"), r.workerMs},
                                  {QStringLiteral("round_trip_ms"), roundTripMs}});
    return result;
}

void SlurmEvaluator::monitor()
{
    QElapsedTimer sincePoll;
    sincePoll.start();
    bool first = true;
    for (;;) {
        bool newWork = false;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait_for(lock, std::chrono::milliseconds(kMonitorTickMs),
                               [this] { return m_stopping || m_wakeMonitor; });
            if (m_stopping)
                return;
            newWork = m_wakeMonitor;
            m_wakeMonitor = false;
        }
        collectResults();
        const bool poll = first || sincePoll.elapsed() >= kQueuePollMs;
        if (poll) { // squeue at most once a second, however fast items are posted
            pollJobs();
            sweepOrphans();
            sincePoll.restart();
            first = false;
        }
        if (poll || newWork)
            submitWorkers();
    }
}

void SlurmEvaluator::collectResults()
{
    QStringList problems;
    QStringList unreadable;
    const QList<WorkResult> results = m_spool.takeResults(&problems, &unreadable);
    for (const QString &problem : std::as_const(problems))
        event(QStringLiteral("unreadable result: ") + problem, true);
    for (const QString &id : std::as_const(unreadable))
        retry(id, QStringLiteral("its result could not be read"));
    for (const WorkResult &result : results)
        acceptResult(result);
}

void SlurmEvaluator::acceptResult(const WorkResult &result)
{
    std::lock_guard lock(m_mutex);
    auto it = m_pending.find(result.id);
    if (it == m_pending.end() || it->result || !it->failure.isEmpty()) {
        ++m_dropped; // a second answer for a requeued item, or one nobody waits for
        return;
    }
    if (result.error.isEmpty())
        it->result = result;
    else
        it->failure = QStringLiteral("not judged on %1: %2").arg(result.job, result.error);
    m_spool.withdraw(result.id); // a requeued copy that nobody has taken yet
    m_changed.notify_all();
}

void SlurmEvaluator::retry(const QString &id, const QString &why)
{
    std::lock_guard lock(m_mutex);
    auto it = m_pending.find(id);
    if (it == m_pending.end() || it->result || !it->failure.isEmpty())
        return;
    QString error;
    if (it->attempts >= kMaxAttempts || !m_spool.post(it->item, &error)) {
        it->failure = QStringLiteral("lost on the cluster %1 times (last: %2)")
                          .arg(it->attempts)
                          .arg(error.isEmpty() ? why : error);
        m_changed.notify_all();
        return;
    }
    ++it->attempts;
    ++m_requeued;
    m_troubled = true;
}

void SlurmEvaluator::pollJobs()
{
    QStringList jobs;
    {
        std::lock_guard lock(m_mutex);
        jobs = m_jobs.keys();
    }
    QString error;
    const std::optional<QMap<QString, SlurmClient::JobState>> states =
        SlurmClient::queue(jobs, &error);
    if (!states) {
        event(QStringLiteral("squeue: ") + error, true); // asked again at the next poll
        return;
    }
    for (const QString &job : std::as_const(jobs)) {
        const auto listed = states->find(job);
        if (listed == states->end() || !SlurmClient::alive(listed->state)) {
            jobLeft(job, listed == states->end() ? SlurmClient::finalState(job) : *listed);
            continue;
        }
        noteState(job, *listed);
        if (waitingAgain(listed->state) && cannotStart(listed->reason)) {
            SlurmClient::cancel({job});
            countFailure(QStringLiteral("job %1 cannot start (%2)").arg(job, listed->reason));
        } else if (waitingAgain(listed->state)) {
            // Requeued by Slurm (preemption, a node that failed): its worker is not running.
            requeueClaims(job, QStringLiteral("job %1 is %2 again").arg(job, listed->state));
        }
    }
}

void SlurmEvaluator::noteState(const QString &job, const SlurmClient::JobState &state)
{
    SlurmClient::JobState previous;
    {
        std::lock_guard lock(m_mutex);
        previous = m_jobs.value(job);
        m_jobs[job] = state;
    }
    if (previous.state == state.state && previous.reason == state.reason)
        return;
    QString line = QStringLiteral("job %1 %2").arg(job, state.state);
    if (!state.node.isEmpty() && SlurmClient::running(state.state))
        line += QStringLiteral(" on ") + state.node;
    else if (!state.reason.isEmpty() && state.reason != QLatin1String("None"))
        line += QStringLiteral(" (%1)").arg(state.reason);
    event(line);
}

void SlurmEvaluator::jobLeft(const QString &job, const SlurmClient::JobState &state)
{
    event(QStringLiteral("job %1 ended: %2%3")
              .arg(job, state.state,
                   state.reason.isEmpty() || state.reason == QLatin1String("None")
                       ? QString()
                       : QStringLiteral(" (%1)").arg(state.reason)));
    requeueClaims(
        job, QStringLiteral("job %1 ended %2 on %3")
                 .arg(job, state.state, state.node.isEmpty() ? QStringLiteral("?") : state.node));
    {
        std::lock_guard lock(m_mutex);
        m_jobs.remove(job);
    }
    if (m_spool.hasStarted(job)) {
        std::lock_guard lock(m_mutex);
        m_failuresInARow = 0;
        return;
    }
    // It ended without ever looking for work: the node cannot run the worker as set up.
    countFailure(QStringLiteral("job %1 ended %2 before its worker started%3")
                     .arg(job, state.state, workerLogTail(job)));
}

QString SlurmEvaluator::workerLogTail(const QString &job) const
{
    QFile log(m_spool.path(QStringLiteral("logs/worker-%1.log").arg(job)));
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const QString tail = QString::fromUtf8(log.readAll()).trimmed().right(300);
    return tail.isEmpty() ? QString() : QStringLiteral("; its log: ") + tail;
}

void SlurmEvaluator::sweepOrphans()
{
    // Claims of a job this session does not track (an sbatch whose answer was lost, a job that
    // left before it was listed) would never be requeued otherwise.
    for (const QString &worker : m_spool.workers()) {
        bool tracked = false;
        {
            std::lock_guard lock(m_mutex);
            tracked = m_jobs.contains(worker);
        }
        if (!tracked && !m_spool.claimedBy(worker).isEmpty())
            requeueClaims(worker, QStringLiteral("job %1 is not in the queue").arg(worker));
    }
}

void SlurmEvaluator::requeueClaims(const QString &job, const QString &why)
{
    for (const QString &id : m_spool.claimedBy(job)) {
        if (m_spool.hasResult(id))
            continue; // finished before the job ended; the next collection takes it
        std::lock_guard lock(m_mutex);
        auto it = m_pending.find(id);
        const bool waited = it != m_pending.end() && !it->result && it->failure.isEmpty();
        if (!waited || it->attempts >= kMaxAttempts) {
            m_spool.drop(job, id); // straight away, so no other worker takes it meanwhile
            if (waited) {
                it->failure = QStringLiteral("lost on the cluster %1 times (last: %2)")
                                  .arg(it->attempts)
                                  .arg(why);
                m_changed.notify_all();
            }
        } else if (m_spool.requeue(job, id)) {
            ++it->attempts;
            ++m_requeued;
            m_troubled = true;
            m_wakeMonitor = true;
        }
    }
}

void SlurmEvaluator::submitWorkers()
{
    int need = 0;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping || !m_fatal.isEmpty() ||
            (m_sinceFailure.isValid() && m_sinceFailure.elapsed() < kSubmitBackOffMs))
            return;
        int waiting = 0;
        for (const Pending &p : std::as_const(m_pending))
            waiting += !p.result && p.failure.isEmpty() ? 1 : 0;
        need = std::min(m_settings.maxJobs, waiting) - int(m_jobs.size());
    }
    for (int i = 0; i < need; ++i) {
        QStringList options = m_settings.sbatchOptions(jobName());
        options << QStringLiteral("--output=") + m_spool.path(QStringLiteral("logs/worker-%j.log"));
        QString error;
        const std::optional<QString> job = SlurmClient::submit(options, m_script, &error);
        if (!job) {
            event(QStringLiteral("sbatch: ") + error, true);
            countFailure(QStringLiteral("sbatch failed: ") + error);
            return;
        }
        bool stopping = false;
        {
            std::lock_guard lock(m_mutex);
            ++m_submitted;
            m_jobs.insert(*job, SlurmClient::JobState{QStringLiteral("PENDING"), {}, {}});
            stopping = m_stopping;
        }
        event(QStringLiteral("job %1 submitted").arg(*job));
        if (stopping)
            break; // shutdown cancels it with the others
    }
}

void SlurmEvaluator::countFailure(const QString &why)
{
    bool hopeless = false;
    {
        std::lock_guard lock(m_mutex);
        m_sinceFailure.start();
        hopeless = ++m_failuresInARow >= kMaxFailuresInARow;
    }
    event(why, true);
    if (hopeless)
        failAll(QStringLiteral("Slurm cannot run Kiln's workers (%1 failures in a row; last: %2)")
                    .arg(kMaxFailuresInARow)
                    .arg(why),
                true);
}

void SlurmEvaluator::failAll(const QString &why, bool fatal)
{
    std::function<void(const QString &)> onFatal;
    {
        std::lock_guard lock(m_mutex);
        m_fatal = why;
        onFatal = fatal ? m_onFatal : nullptr;
    }
    if (onFatal)
        onFatal(why); // first: the run stops before the waiting evaluations return
    std::lock_guard lock(m_mutex);
    for (Pending &p : m_pending) {
        if (!p.result && p.failure.isEmpty())
            p.failure = why;
    }
    m_changed.notify_all();
}

void SlurmEvaluator::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        m_stopping = true;
        m_onFatal = nullptr; // what it refers to (an engine) may be gone after this
        m_changed.notify_all();
    }
    if (m_monitor.joinable())
        m_monitor.join();
    m_spool.requestStop();
    QStringList jobs;
    {
        std::lock_guard lock(m_mutex);
        jobs = m_jobs.keys();
        m_jobs.clear();
    }
    if (m_submitted > 0) {
        SlurmClient::cancelByName(jobName()); // the tracked jobs and any whose id was lost
        event(QStringLiteral("scancel --name=%1 (%2)")
                  .arg(jobName(),
                       jobs.isEmpty() ? QStringLiteral("none left") : jobs.join(QLatin1Char(' '))));
    }
    failAll(QStringLiteral("the cluster executor stopped"), false);
    std::lock_guard lock(m_mutex);
    // A session that went wrong somewhere keeps its folder (the workers' logs) for a look.
    if (!m_troubled && qEnvironmentVariableIsEmpty("KILN_KEEP_SPOOL"))
        QDir(m_spool.root()).removeRecursively();
}

} // namespace kiln
