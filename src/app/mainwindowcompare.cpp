// MainWindow: the equal-budget comparison and presentation mode.
#include "mainwindow.h"

#include "comparedialog.h"
#include "plotspanel.h"
#include "strategyregistry.h"
#include "ui_mainwindow.h"

#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/strategycomparison.h"
#include "models/workspace.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMessageBox>
#include <QStatusBar>

#include <memory>

namespace kiln {

QList<RunController *> MainWindow::startComparison(const Comparison &comparison, QString *error)
{
    QList<RunController *> controllers;
    const QString problem = comparison.problem();
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return controllers;
    }
    const BudgetAxis axis = *comparison.axis();
    // One slot per run, in the comparison's order (strategy, then seed), whatever order the
    // queued runs start in: the curves and the table keep the user's order. Each comparison
    // has slots of its own; a run of an earlier one that starts late changes nothing here.
    auto runSlots = std::make_shared<QList<qint64>>(comparison.runCount(), 0);
    m_compareRuns = runSlots;
    m_compareAxis = StrategyComparison::axisFor(axis);
    m_compareBudget = comparison.budget;
    m_compareDatabase.clear(); // known once its first run starts
    m_backToComparison->setEnabled(true);
    for (const QString &strategy : comparison.strategies)
        for (int seed = 1; seed <= comparison.seeds; ++seed) {
            // The first run is shown; the others grow in the plot only.
            RunController *controller =
                startRunFromArguments(comparison.arguments(strategy, seed), comparison.database,
                                      error, controllers.isEmpty());
            if (!controller)
                return controllers;
            const int slot = int(controllers.size());
            controllers.append(controller);
            connect(
                controller, &RunController::started, this,
                [this, controller, runSlots, slot, axis, budget = comparison.budget](qint64 runId) {
                    (*runSlots)[slot] = runId;
                    if (m_compareRuns != runSlots)
                        return; // a later comparison is shown
                    m_compareDatabase = m_workspace->path();
                    m_plots->setComparison(ComparisonPlan::startedRuns(*runSlots),
                                           StrategyComparison::axisFor(axis), budget);
                    connect(controller, &RunController::candidateEvaluated, m_plots,
                            &PlotsPanel::requestRefresh);
                });
        }
    m_plotsDock->show();
    m_plotsDock->raise();
    tell(comparison.queuedMessage(controllers.size()));
    return controllers;
}

void MainWindow::setupComparisonActions()
{
    m_backToComparison = new QAction(tr("&Back to the comparison"), this);
    m_backToComparison->setObjectName(QStringLiteral("actionBackToComparison"));
    m_backToComparison->setEnabled(false);
    m_backToComparison->setToolTip(
        tr("The last comparison's curves and table, after looking at another run"));
    m_ui->menuView->insertAction(m_ui->actionPresentation, m_backToComparison);
    connect(m_backToComparison, &QAction::triggered, this, &MainWindow::showComparisonAgain);
}

void MainWindow::showComparisonAgain()
{
    if (!m_compareRuns)
        return;
    const QList<qint64> runs = ComparisonPlan::startedRuns(*m_compareRuns);
    if (runs.isEmpty()) {
        tell(tr("No run of the comparison has started yet."));
        return;
    }
    // Its runs are in its own database: show that one if another is open.
    QString error;
    if (openDatabasePath() != m_compareDatabase && !openDatabase(m_compareDatabase, &error)) {
        if (!error.isEmpty())
            warnOf(error);
        return;
    }
    if (!m_document->hasRun() || !runs.contains(m_document->run().id))
        loadRun(runs.first(), &error);
    m_plots->setComparison(runs, m_compareAxis, m_compareBudget);
    m_plotsDock->show();
    m_plotsDock->raise();
}

bool MainWindow::openCompareDialog()
{
    QString error;
    if (!ensureWorkspace(defaultDatabase(), &error)) {
        QMessageBox::warning(this, tr("Compare strategies"), error);
        return false;
    }
    CompareDialog dialog(m_workspace->tasks().names(), StrategyRegistry::names(), this);
    dialog.setComparison(ComparisonPlan::proposedFor(shownRun()));
    if (dialog.exec() != QDialog::Accepted)
        return false;
    Comparison chosen = dialog.comparison();
    chosen.database = m_workspace->path();
    const qsizetype started = startComparison(chosen, &error).size();
    if (started != chosen.runCount()) {
        QMessageBox::warning(this, tr("Compare strategies"),
                             chosen.shortfallMessage(started, error));
        return false;
    }
    return true;
}

void MainWindow::setPresentation(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    m_ui->actionPresentation->setChecked(on);
    if (on) {
        m_stateBeforePresenting = saveState();
        // Only the plots: the compare view, as large as the screen allows.
        for (QDockWidget *dock : findChildren<QDockWidget *>())
            if (dock != m_plotsDock)
                dock->hide();
        m_plotsDock->show();
        centralWidget()->hide(); // the tree; the plots take its room
        showFullScreen();
    } else {
        centralWidget()->show();
        restoreState(m_stateBeforePresenting);
        showNormal();
    }
    m_plots->setPresentation(on);
    setFont(on ? QFont(font().family(), QApplication::font().pointSize() * 3 / 2)
               : QApplication::font());
}

} // namespace kiln
