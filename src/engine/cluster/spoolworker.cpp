#include "engine/cluster/spoolworker.h"

#include "engine/shapeproposal.h"

#include "verifier/verifier.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSysInfo>
#include <QThread>
#include <cstdio>

namespace kiln {

namespace {

constexpr int kIdlePollMs = 50; // how soon an idle worker sees a new item

} // namespace

SpoolWorker::SpoolWorker(SpoolDirectory spool, QString name, int idleExitSeconds)
    : m_spool(std::move(spool)), m_name(std::move(name)), m_idleExitSeconds(idleExitSeconds)
{
}

SpoolWorker::~SpoolWorker() = default;

QString SpoolWorker::defaultName()
{
    const QString job = qEnvironmentVariable("SLURM_JOB_ID");
    if (!job.isEmpty())
        return job;
    return QStringLiteral("%1-%2")
        .arg(QSysInfo::machineHostName())
        .arg(QCoreApplication::applicationPid());
}

Verifier &SpoolWorker::verifier(bool lenient)
{
    std::unique_ptr<Verifier> &slot = lenient ? m_lenient : m_strict;
    if (!slot) {
        VerifierOptions options = VerifierOptions::defaults();
        options.lenient = lenient;
        // The session's compile cache: an item requeued after its worker was lost finds the
        // object compiled there, whichever node takes it (entries land by rename, so nodes may
        // share it).
        options.cacheDirectory = m_spool.path(QStringLiteral("cache"));
        slot = std::make_unique<Verifier>(options);
    }
    return *slot;
}

const Task *SpoolWorker::task(const QString &name)
{
    if (!m_tasks.contains(name)) // published after this worker started: look again
        m_tasks.loadDirectory(m_spool.path(QStringLiteral("tasks")));
    return m_tasks.task(name);
}

std::optional<WorkResult> SpoolWorker::judge(const WorkItem &item, const std::atomic<bool> &stop)
{
    QElapsedTimer timer;
    timer.start();
    WorkResult result;
    result.id = item.id;
    result.node = QSysInfo::machineHostName();
    result.job = m_name;
    result.gpus = qEnvironmentVariable("CUDA_VISIBLE_DEVICES");
    if (const Task *t = task(item.task)) {
        Task checked = ShapeProposal::withShapes(*t, ShapeProposal::fromJson(item.extraShapes));
        checked.candidateLanguage = item.language;
        result.evaluation =
            verifier(item.lenient).evaluate(checked, item.backend, item.source, item.secret, stop);
    } else {
        result.evaluation.backend = item.backend;
        result.evaluation.summary =
            QStringLiteral("task %1 is not in the spool's tasks folder").arg(item.task);
    }
    if (stop)
        return std::nullopt; // cut short: not a verdict, the engine requeues the item
    result.workerMs = timer.nsecsElapsed() / 1e6;
    return result;
}

int SpoolWorker::run(const std::atomic<bool> &stop, QString *error)
{
    if (const int back = m_spool.releaseClaims(m_name); back > 0)
        std::fprintf(stderr, "kiln worker %s: returned %d item(s) held before a restart\n",
                     qPrintable(m_name), back);
    const QString setup = verifier(false).checkSetup();
    if (!setup.isEmpty()) {
        *error = setup;
        return -1;
    }
    // Only now: the engine counts a job that ends before this as one that could not start.
    if (!m_spool.markStarted(m_name, error))
        return -1;
    int judged = 0;
    QElapsedTimer idle;
    idle.start();
    while (!stop && !m_spool.stopRequested() && m_spool.exists()) {
        QString problem;
        const std::optional<WorkItem> item = m_spool.claim(m_name, &problem);
        if (!problem.isEmpty())
            std::fprintf(stderr, "kiln worker %s: %s\n", qPrintable(m_name), qPrintable(problem));
        if (!problem.isEmpty() && !item)
            continue; // that item was answered with the error; look for the next
        if (!item) {
            if (idle.elapsed() >= qint64(m_idleExitSeconds) * 1000)
                break;
            QThread::msleep(kIdlePollMs);
            continue;
        }
        const std::optional<WorkResult> result = judge(*item, stop);
        if (!result)
            break;
        if (!m_spool.complete(m_name, *result, &problem)) {
            *error = problem;
            return -1;
        }
        std::fprintf(stderr, "kiln worker %s: %s on %s: %s\n", qPrintable(m_name),
                     qPrintable(item->id), qPrintable(item->task),
                     qPrintable(result->error.isEmpty() ? verdictName(result->evaluation.verdict)
                                                        : result->error));
        ++judged;
        idle.restart();
    }
    return judged;
}

} // namespace kiln
