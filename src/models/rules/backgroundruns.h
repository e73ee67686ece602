#pragma once

#include "models/runcontroller.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// The runs this window's workspace is growing that the person may not be looking at: what the
// Run ▸ Runs going menu lists (each one shown, paused, resumed or stopped from there), the
// line the status bar gives them while another database or run is on screen, and the question
// before opening another database hides them. A run stays in its own database's workspace
// whatever is shown, so it must stay within reach.
class BackgroundRuns
{
public:
    struct Entry
    {
        RunController *controller = nullptr; // the workspace's; a queued one has no run id yet
        qint64 runId = 0;
        QString label; // "#3 matmul · evolve — running"
        RunController::State state = RunController::State::Queued;
        bool shown = false; // the run on screen
        bool canPause = false;
        bool canResume = false;
        bool canStop = false;
    };

    // `controllers`: the workspace's, of the database at `workspacePath`; `shownPath` and
    // `shownRunId` what the window shows (0: no run).
    BackgroundRuns(const QList<RunController *> &controllers, const QString &workspacePath,
                   const QString &shownPath, qint64 shownRunId);

    const QList<Entry> &entries() const { return m_entries; }
    // Going or queued and not on screen.
    int hiddenCount() const;
    // "2 runs going in a.db (Run ▸ Runs going)"; empty when none is hidden.
    QString statusLine() const;
    // Asked before another database replaces the shown one while runs go (nullopt: nothing to
    // ask, no run goes or the database is the workspace's own).
    std::optional<QString> openQuestion(const QString &otherPath) const;

private:
    QList<Entry> m_entries;
    QString m_workspacePath;
};

} // namespace kiln
