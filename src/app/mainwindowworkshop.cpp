// MainWindow, continued: workshop mode. An exercise's runs start one after another (as the
// workshop doc's commands do), then the lenient run is judged strictly where the exercise asks,
// and the view that shows the lesson comes to the front.
#include "mainwindow.h"

#include "plotspanel.h"
#include "ui_mainwindow.h"
#include "workshopdialog.h"

#include "models/rules/databasechoice.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace kiln {

void MainWindow::setupWorkshopActions()
{
    auto *action = new QAction(tr("&Workshop exercises…"), this);
    action->setObjectName(QStringLiteral("actionWorkshop"));
    action->setToolTip(tr("The seven exercises of the workshop (docs/workshop.md), each run from "
                          "here with what to look at and expect"));
    m_ui->menuRun->insertAction(m_ui->actionCompare, action);
    connect(action, &QAction::triggered, this, [this] { openWorkshop(); });
}

WorkshopDialog *MainWindow::openWorkshop()
{
    if (!m_workshop) {
        const QString folder = QDir(QStandardPaths::writableLocation(QStandardPaths::HomeLocation))
                                   .filePath(QStringLiteral("kiln-workshop"));
        m_workshop = new WorkshopDialog(folder, this);
        connect(m_workshop, &WorkshopDialog::startRequested, this,
                [this](const WorkshopExercise &exercise) {
                    QString error;
                    if (!startWorkshopExercise(exercise, &error))
                        warnOf(error);
                });
    }
    m_workshop->show();
    m_workshop->raise();
    return m_workshop;
}

bool MainWindow::startWorkshopExercise(const WorkshopExercise &exercise, QString *error)
{
    if (!QDir().mkpath(QFileInfo(exercise.runs.first().database).absolutePath())) {
        if (error)
            *error = tr("cannot create the folder of %1").arg(exercise.runs.first().database);
        return false;
    }
    auto runIds = std::make_shared<QList<qint64>>();
    if (!startExerciseRun(exercise, 0, runIds, error))
        return false;
    if (m_workshop)
        m_workshop->setStatus(
            tr("Exercise %1: run 1 of %2 going…").arg(exercise.number).arg(exercise.runs.size()));
    return true;
}

// Run `index` of the exercise; the next one starts when it ends, and after the last, the end.
bool MainWindow::startExerciseRun(const WorkshopExercise &exercise, int index,
                                  const std::shared_ptr<QList<qint64>> &runIds, QString *error)
{
    RunController *controller = startLaunch(exercise.runs[index], 0, error);
    if (!controller)
        return false;
    showRunWhenStarted(controller);
    connect(controller, &RunController::started, this,
            [runIds](qint64 runId) { runIds->append(runId); });
    auto next = [this, exercise, index, runIds, controller](qint64, const QString &reason) {
        // A run stopped (or cancelled in its queue) ends the exercise there.
        if (controller->state() != RunController::State::Finished) {
            if (m_workshop)
                m_workshop->setStatus(
                    tr("Exercise %1 stopped: %2").arg(exercise.number).arg(reason));
            return;
        }
        QString why;
        if (index + 1 < exercise.runs.size()) {
            if (m_workshop)
                m_workshop->setStatus(tr("Exercise %1: run %2 of %3 going…")
                                          .arg(exercise.number)
                                          .arg(index + 2)
                                          .arg(exercise.runs.size()));
            if (!startExerciseRun(exercise, index + 1, runIds, &why))
                warnOf(why);
            return;
        }
        finishExercise(exercise, *runIds);
    };
    connect(controller, &RunController::finished, this, next, Qt::SingleShotConnection);
    connect(controller, &RunController::failed, this, [this, exercise](qint64, const QString &why) {
        if (m_workshop)
            m_workshop->setStatus(tr("Exercise %1 stopped: %2").arg(exercise.number).arg(why));
    });
    return true;
}

void MainWindow::finishExercise(const WorkshopExercise &exercise, QList<qint64> runIds)
{
    if (exercise.rejudgeStrictly && !runIds.isEmpty()) {
        const qint64 lenient = runIds.first();
        // Only this rejudgement's answer: another may be under way from Run > Judge again.
        const int ticket = m_workspace->rejudgeStrictly(lenient);
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(m_workspace, &Workspace::rejudged, this,
                              [this, exercise, runIds, ticket, connection](
                                  int answered, qint64, qint64 newRunId, int, const QString &) {
                                  if (answered != ticket)
                                      return;
                                  disconnect(*connection);
                                  QList<qint64> all = runIds;
                                  if (newRunId)
                                      all.append(newRunId);
                                  showExerciseView(exercise, all);
                              });
        if (m_workshop)
            m_workshop->setStatus(tr("Exercise %1: judging run #%2 again strictly…")
                                      .arg(exercise.number)
                                      .arg(lenient));
        return;
    }
    showExerciseView(exercise, runIds);
}

void MainWindow::showExerciseView(const WorkshopExercise &exercise, const QList<qint64> &runIds)
{
    if (runIds.isEmpty())
        return;
    if (openDatabasePath() != m_workspace->path())
        openDatabase(m_workspace->path());
    const bool first = exercise.view == WorkshopExercise::View::Plot;
    loadRun(first ? runIds.first() : runIds.last());
    selectBestCandidate();
    if (exercise.view != WorkshopExercise::View::Compare)
        m_plots->setRunIds({});
    switch (exercise.view) {
    case WorkshopExercise::View::Tree:
        showView(QStringLiteral("tree"));
        break;
    case WorkshopExercise::View::Code:
        showView(QStringLiteral("code"));
        break;
    case WorkshopExercise::View::Plot: {
        PlotOptions options = m_plots->options();
        options.kind = exercise.plot;
        m_plots->setOptions(options);
        showView(QStringLiteral("plots"));
        break;
    }
    case WorkshopExercise::View::Compare: {
        PlotOptions options = m_plots->options();
        options.kind = PlotKind::Speedup;
        m_plots->setOptions(options);
        m_plots->setRunIds(runIds);
        showView(QStringLiteral("plots"));
        break;
    }
    }
    QStringList ids;
    for (qint64 id : runIds)
        ids << QStringLiteral("#%1").arg(id);
    if (m_workshop)
        m_workshop->setStatus(tr("Exercise %1 done (runs %2 of %3). Look at: %4")
                                  .arg(exercise.number)
                                  .arg(ids.join(QStringLiteral(", ")),
                                       QFileInfo(m_workspace->path()).fileName(), exercise.lookAt));
    emit exerciseDone(exercise.number, runIds);
}

} // namespace kiln
