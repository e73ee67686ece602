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

#include <QApplication>
#include <QDockWidget>
#include <QMessageBox>
#include <QStatusBar>

#include <memory>

namespace kiln {

QList<RunController *> MainWindow::startComparison(const Comparison &comparison, QString *error)
{
    QList<RunController *> controllers;
    const std::optional<BudgetAxis> axis = budgetAxisFromName(comparison.budgetAxis);
    if (comparison.strategies.isEmpty() || comparison.seeds < 1 || !axis) {
        if (error)
            *error = tr("a comparison needs strategies, seeds and a budget axis");
        return controllers;
    }
    // One slot per run, in the comparison's order (strategy, then seed), whatever order the
    // queued runs start in: the curves and the table keep the user's order. Each comparison
    // has slots of its own; a run of an earlier one that starts late changes nothing here.
    auto runSlots =
        std::make_shared<QList<qint64>>(comparison.strategies.size() * comparison.seeds, 0);
    m_compareRuns = runSlots;
    for (const QString &strategy : comparison.strategies)
        for (int seed = 1; seed <= comparison.seeds; ++seed) {
            const QStringList arguments{
                QStringLiteral("--task"),        comparison.task,
                QStringLiteral("--strategy"),    strategy,
                QStringLiteral("--budget"),      QString::number(comparison.budget),
                QStringLiteral("--budget-axis"), comparison.budgetAxis,
                QStringLiteral("--seed"),        QString::number(seed)};
            // The first run is shown; the others grow in the plot only.
            RunController *controller =
                startRunFromArguments(arguments, comparison.database, error, controllers.isEmpty());
            if (!controller)
                return controllers;
            const int slot = int(controllers.size());
            controllers.append(controller);
            connect(controller, &RunController::started, this,
                    [this, controller, runSlots, slot, axis = *axis,
                     budget = comparison.budget](qint64 runId) {
                        (*runSlots)[slot] = runId;
                        if (m_compareRuns != runSlots)
                            return; // a later comparison is shown
                        QList<qint64> started;
                        for (qint64 id : std::as_const(*runSlots))
                            if (id)
                                started.append(id);
                        m_plots->setComparison(started, StrategyComparison::axisFor(axis), budget);
                        connect(controller, &RunController::candidateEvaluated, m_plots,
                                &PlotsPanel::requestRefresh);
                    });
        }
    m_plotsDock->show();
    m_plotsDock->raise();
    statusBar()->showMessage(tr("Comparing %1 over %2 seeds each: %3 runs queued")
                                 .arg(comparison.strategies.join(QStringLiteral(", ")))
                                 .arg(comparison.seeds)
                                 .arg(controllers.size()),
                             8000);
    return controllers;
}

bool MainWindow::openCompareDialog()
{
    QString error;
    if (!ensureWorkspace(m_document->isOpen() ? m_document->databasePath() : defaultDatabase(),
                         &error)) {
        QMessageBox::warning(this, tr("Compare strategies"), error);
        return false;
    }
    CompareDialog dialog(m_workspace->tasks().names(), StrategyRegistry::names(), this);
    Comparison initial;
    if (m_document->hasRun() && !m_document->run().tasks.isEmpty())
        initial.task = m_document->run().tasks.first();
    dialog.setComparison(initial);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    Comparison chosen = dialog.comparison();
    chosen.database = m_workspace->path();
    const qsizetype started = startComparison(chosen, &error).size();
    if (started != chosen.strategies.size() * chosen.seeds) {
        QMessageBox::warning(this, tr("Compare strategies"),
                             tr("%1 of %2 runs started: %3")
                                 .arg(started)
                                 .arg(chosen.strategies.size() * chosen.seeds)
                                 .arg(error));
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
