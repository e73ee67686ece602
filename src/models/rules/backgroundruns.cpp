#include "models/rules/backgroundruns.h"

#include "models/rules/controllerstatus.h"

#include <QFileInfo>
#include <QObject>

namespace kiln {

namespace {

bool goingOrQueued(RunController::State state)
{
    return state != RunController::State::Finished && state != RunController::State::Cancelled &&
           state != RunController::State::Failed;
}

} // namespace

BackgroundRuns::BackgroundRuns(const QList<RunController *> &controllers,
                               const QString &workspacePath, const QString &shownPath,
                               qint64 shownRunId)
    : m_workspacePath(workspacePath)
{
    const bool sameDatabase = !workspacePath.isEmpty() && workspacePath == shownPath;
    for (RunController *c : controllers) {
        if (!goingOrQueued(c->state()))
            continue;
        Entry e;
        e.controller = c;
        e.runId = c->runId();
        e.state = c->state();
        e.shown = sameDatabase && c->runId() != 0 && c->runId() == shownRunId;
        const RunConfig &config = c->config();
        const QString id =
            c->runId() ? QStringLiteral("#%1").arg(c->runId()) : QObject::tr("(not started)");
        e.label = QObject::tr("%1 %2 · %3 — %4")
                      .arg(id, config.tasks.join(QStringLiteral(", ")), config.strategy,
                           ControllerStatus::name(c->state()));
        e.canPause = c->state() == RunController::State::Running;
        e.canResume = c->state() == RunController::State::Paused;
        e.canStop = c->state() != RunController::State::Stopping;
        m_entries.append(e);
    }
}

int BackgroundRuns::hiddenCount() const
{
    int hidden = 0;
    for (const Entry &e : m_entries)
        hidden += !e.shown;
    return hidden;
}

QString BackgroundRuns::statusLine() const
{
    const int hidden = hiddenCount();
    if (hidden == 0)
        return {};
    const QString runs = hidden == 1 ? QObject::tr("1 run") : QObject::tr("%1 runs").arg(hidden);
    return QObject::tr("%1 going in %2 (Run ▸ Runs going)")
        .arg(runs, QFileInfo(m_workspacePath).fileName());
}

std::optional<QString> BackgroundRuns::openQuestion(const QString &otherPath) const
{
    if (m_entries.isEmpty() || otherPath == m_workspacePath)
        return std::nullopt;
    const qsizetype n = m_entries.size();
    const QString runs = n == 1 ? QObject::tr("A run") : QObject::tr("%1 runs").arg(n);
    return QObject::tr("%1 of %2 still going. They go on in the background while %3 is shown; "
                       "Run ▸ Runs going lists them, and can show, pause or stop them.\n\n"
                       "Open %3?")
        .arg(runs, QFileInfo(m_workspacePath).fileName(), QFileInfo(otherPath).fileName());
}

} // namespace kiln
