// MainWindow, continued: starting, watching and steering runs, and hand-written candidates
// (editable copies and dropped files). The window's layout and browsing live in mainwindow.cpp.
#include "mainwindow.h"

#include "engine/profile/candidateprofiler.h"
#include "memorydialog.h"
#include "models/memorytablemodel.h"
#include "profilepanel.h"

#include "codeeditor.h"
#include "codepanel.h"
#include "lineageview.h"
#include "manualeditorpanel.h"
#include "manualedittab.h"
#include "runlauncherdialog.h"
#include "runprogresswidget.h"
#include "svgiconengine.h"
#include "ui_mainwindow.h"

#include "engine/runarguments.h"
#include "engine/runconfig.h"
#include "models/candidateselection.h"
#include "models/launchsettings.h"
#include "models/rules/backgroundruns.h"
#include "models/rules/candidatefile.h"
#include "models/rules/candidatepicks.h"
#include "models/rules/controllerstatus.h"
#include "models/rules/databasechoice.h"
#include "models/rules/editedcopysubmission.h"
#include "models/rules/fileevaluationplan.h"
#include "models/rules/launchcheck.h"
#include "models/rules/runactionstate.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

namespace kiln {

RunController *MainWindow::liveController() const
{
    return m_live;
}

void MainWindow::setupRunActions()
{
    Ui::MainWindow &ui = *m_ui;
    ui.actionNewRun->setIcon(SvgIconEngine::icon(QStringLiteral("newrun")));
    ui.actionPauseRun->setIcon(SvgIconEngine::icon(QStringLiteral("pause")));
    ui.actionResumeRun->setIcon(SvgIconEngine::icon(QStringLiteral("run")));
    ui.actionStopRun->setIcon(SvgIconEngine::icon(QStringLiteral("stop")));
    ui.actionContinueRun->setIcon(SvgIconEngine::icon(QStringLiteral("continue")));
    ui.actionEditCopy->setIcon(SvgIconEngine::icon(QStringLiteral("edit")));
    connect(ui.actionNewRun, &QAction::triggered, this, [this] { openLauncher(); });
    connect(ui.actionCompare, &QAction::triggered, this, [this] { openCompareDialog(); });
    connect(ui.actionPresentation, &QAction::toggled, this, &MainWindow::setPresentation);
    connect(ui.actionPauseRun, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->pause();
    });
    connect(ui.actionResumeRun, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->resume();
    });
    connect(ui.actionStopRun, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->stop();
    });
    connect(ui.actionContinueRun, &QAction::triggered, this, [this] {
        QString error;
        if (!resumeShownRun(&error) && !error.isEmpty())
            warnOf(error);
    });
    connect(ui.actionEvaluateFile, &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Evaluate a candidate file"), QString(),
                                         tr("Kernels (*.cu *.cpp *.cc *.cxx);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !evaluateFile(path, QString(), &error) && !error.isEmpty())
            QMessageBox::warning(this, tr("Evaluate a file"), error);
    });
    connect(ui.actionEditCopy, &QAction::triggered, this, [this] { editCopyOfCurrent(); });
    connect(m_code, &CodePanel::editCopyRequested, this, [this] { editCopyOfCurrent(); });

    // The run tools sit after the run picker: resume the picked run, start, pause, stop.
    QAction *afterPicker = nullptr;
    const QList<QAction *> toolbarActions = ui.mainToolBar->actions();
    for (qsizetype i = 0; i + 1 < toolbarActions.size(); ++i)
        if (ui.mainToolBar->widgetForAction(toolbarActions[i]) == m_runCombo)
            afterPicker = toolbarActions[i + 1];
    for (QAction *a : {ui.actionContinueRun, ui.actionNewRun, ui.actionPauseRun, ui.actionResumeRun,
                       ui.actionStopRun})
        ui.mainToolBar->insertAction(afterPicker, a);
    ui.mainToolBar->insertSeparator(afterPicker);

    m_progress = new RunProgressWidget(this);
    statusBar()->addPermanentWidget(m_progress);
    connect(m_editor, &ManualEditorPanel::submitRequested, this, &MainWindow::submitTab);
    connect(m_editor, &ManualEditorPanel::candidateRequested, m_lineage,
            &LineageView::findCandidate);
    connect(m_workspace, &Workspace::manualStored, this, &MainWindow::onManualStored);
    connect(m_workspace, &Workspace::manualFinished, this, &MainWindow::onManualFinished);
    connect(m_workspace, &Workspace::runAdded, this, &MainWindow::watchController);
    connect(m_workspace, &Workspace::rejudged, this,
            [this](int, qint64 runId, qint64 newRunId, int changed, const QString &error) {
                onRejudged(runId, newRunId, changed, error);
            });
    m_rejudgeAction = new QAction(tr("&Judge again strictly"), this);
    m_rejudgeAction->setObjectName(QStringLiteral("actionRejudge"));
    m_rejudgeAction->setToolTip(tr("The shown lenient run's candidates judged by the strict "
                                   "verifier, as a new run (kiln-cli rejudge)"));
    ui.menuRun->insertAction(ui.actionEvaluateFile, m_rejudgeAction);
    connect(m_rejudgeAction, &QAction::triggered, this, [this] {
        QString error;
        if (!rejudgeShownRun(&error))
            warnOf(error);
    });
    connect(
        m_workspace, &Workspace::profiled, this,
        [this](int, qint64 candidateId, const QString &error) { onProfiled(candidateId, error); });
    connect(m_profile, &ProfilePanel::profileRequested, this, [this](qint64 candidateId) {
        QString error;
        if (!profileCandidate(candidateId, &error))
            warnOf(error);
    });
    connect(m_selection, &CandidateSelection::currentChanged, this, &MainWindow::updateRunActions);
    setupRunsGoingMenu();
    updateRunActions();
}

bool MainWindow::rejudgeShownRun(QString *error)
{
    const RunRecord *run = shownRun();
    if (!run || !RunConfig::lenientOf(run->config)) {
        if (error)
            *error = tr("Only a run judged by the lenient verifier is judged again strictly.");
        return false;
    }
    if (!ensureWorkspace(m_document->databasePath(), error))
        return false;
    m_workspace->rejudgeStrictly(run->id);
    updateRunActions();
    tell(tr("Judging run #%1 again with the strict verifier…").arg(run->id));
    return true;
}

void MainWindow::showProfiles(const CandidateRecord &record)
{
    const RunRecord *run = shownRun();
    const Backend backend = backendFromName(run ? run->backend : QString()).value_or(Backend::Cpu);
    m_profile->showCandidate(record.id, m_document->profiles(record.id),
                             CandidateProfiler::unavailable(backend));
}

bool MainWindow::profileCandidate(qint64 candidateId, QString *error)
{
    if (!ensureWorkspace(m_document->databasePath(), error))
        return false;
    m_workspace->profileCandidate(candidateId);
    m_profile->setProfiling(candidateId);
    tell(tr("Profiling candidate #%1 with Nsight Compute, then its reference…").arg(candidateId));
    return true;
}

void MainWindow::onProfiled(qint64 candidateId, const QString &error)
{
    m_profile->setProfiling(0);
    if (!error.isEmpty()) {
        warnOf(tr("Candidate #%1 was not profiled: %2").arg(candidateId).arg(error));
        return;
    }
    if (m_selection->current() == candidateId)
        showCurrent();
    tell(tr("Candidate #%1 profiled: see the Profile tab").arg(candidateId));
}

void MainWindow::onRejudged(qint64 runId, qint64 newRunId, int changed, const QString &error)
{
    updateRunActions();
    if (newRunId == 0) {
        warnOf(tr("Run #%1 was not judged again: %2").arg(runId).arg(error));
        return;
    }
    refreshRuns();
    if (openDatabasePath() == m_workspace->path())
        loadRun(newRunId);
    tell(tr("Run #%1 judged strictly as run #%2: %3 of its verdicts changed")
             .arg(runId)
             .arg(newRunId)
             .arg(changed));
}

void MainWindow::setupRunsGoingMenu()
{
    m_runsGoingMenu = new QMenu(tr("Runs &going"), this);
    m_runsGoingMenu->setObjectName(QStringLiteral("runsGoingMenu"));
    m_ui->menuRun->insertMenu(m_ui->actionContinueRun, m_runsGoingMenu);
    m_ui->menuRun->insertSeparator(m_ui->actionContinueRun);
    connect(m_runsGoingMenu, &QMenu::aboutToShow, this, &MainWindow::fillRunsGoingMenu);
}

BackgroundRuns MainWindow::backgroundRuns() const
{
    return BackgroundRuns(m_workspace->controllers(), m_workspace->path(), openDatabasePath(),
                          m_document->hasRun() ? m_document->run().id : 0);
}

void MainWindow::fillRunsGoingMenu()
{
    m_runsGoingMenu->clear();
    const BackgroundRuns runs = backgroundRuns();
    if (runs.entries().isEmpty()) {
        m_runsGoingMenu->addAction(tr("No run is going"))->setEnabled(false);
        return;
    }
    for (const BackgroundRuns::Entry &e : runs.entries()) {
        QMenu *menu = m_runsGoingMenu->addMenu(e.shown ? tr("%1 (shown)").arg(e.label) : e.label);
        const QPointer<RunController> c = e.controller;
        const qint64 runId = e.runId;
        menu->addAction(tr("Show"), this, [this, runId] { showWorkspaceRun(runId); })
            ->setEnabled(runId != 0 && !e.shown);
        menu->addAction(tr("Pause"), this, [c] { c ? c->pause() : void(); })
            ->setEnabled(e.canPause);
        menu->addAction(tr("Resume"), this, [c] { c ? c->resume() : void(); })
            ->setEnabled(e.canResume);
        menu->addAction(tr("Stop"), this, [c] { c ? c->stop() : void(); })->setEnabled(e.canStop);
    }
}

void MainWindow::updateBackgroundLine()
{
    if (m_live)
        return; // the live run's progress line counts the others
    const QString line = backgroundRuns().statusLine();
    if (line.isEmpty())
        m_progress->setVisible(false);
    else
        m_progress->showNote(line);
}

// A run of the workspace, brought back on screen from wherever the window is.
void MainWindow::showWorkspaceRun(qint64 runId)
{
    QString error;
    if (openDatabasePath() != m_workspace->path() && !openDatabase(m_workspace->path(), &error)) {
        warnOf(error);
        return;
    }
    if (!loadRun(runId, &error)) {
        warnOf(error);
        return;
    }
    updateLiveSource();
    selectAfterLoad(0);
}

void MainWindow::updateRunActions()
{
    Ui::MainWindow &ui = *m_ui;
    const std::optional<RunController::State> liveState =
        m_live && m_live->isLive() ? std::optional(m_live->state()) : std::nullopt;
    const int row = m_document->rowOf(m_selection->current());
    const RunActionState actions =
        RunActionState::of(liveState, shownRun(), row >= 0 ? &m_document->at(row) : nullptr);
    ui.actionPauseRun->setEnabled(actions.pause);
    ui.actionResumeRun->setEnabled(actions.resume);
    ui.actionStopRun->setEnabled(actions.stop);
    ui.actionContinueRun->setEnabled(actions.continueRun);
    ui.actionEditCopy->setEnabled(actions.editCopy);
    // Once at a time: a second click would make a second strict run.
    if (m_rejudgeAction)
        m_rejudgeAction->setEnabled(shownRun() && RunConfig::lenientOf(shownRun()->config) &&
                                    !m_workspace->hasManualWork());
    m_code->setEditCopyEnabled(ui.actionEditCopy->isEnabled());
}

void MainWindow::watchController(RunController *controller)
{
    connect(controller, &RunController::stateChanged, this, [this] {
        refreshRuns();
        updateRunActions();
        updateBackgroundLine();
    });
    connect(controller, &RunController::failed, this, [this](qint64, const QString &error) {
        warnOf(tr("The run could not start: %1").arg(error));
    });
    connect(controller, &RunController::finished, this,
            [this, controller](qint64 runId, const QString &reason) {
                tell(tr("Run #%1 %2: %3")
                         .arg(runId)
                         .arg(ControllerStatus::name(controller->state()), reason));
                // The run on screen ended with nothing selected: show what it found.
                if (showsWorkspaceRun(runId) && !m_selection->current())
                    QTimer::singleShot(0, this, [this] { selectBestCandidate(); });
            });
}

QString MainWindow::defaultDatabase() const
{
    return DatabaseChoice::defaultWorkspace(openDatabasePath());
}

QString MainWindow::openDatabasePath() const
{
    return m_document->isOpen() ? m_document->databasePath() : QString();
}

const RunRecord *MainWindow::shownRun() const
{
    return m_document->hasRun() ? &m_document->run() : nullptr;
}

bool MainWindow::ensureWorkspace(const QString &path, QString *error)
{
    QString why;
    if (!m_workspace->open(path, &why)) {
        if (error)
            *error = tr("cannot open %1 for writing: %2").arg(path, why);
        return false;
    }
    // The document reads through its own connection; the file exists now.
    if (m_document->databasePath() != path && !openDatabase(path, error))
        return false;
    return true;
}

bool MainWindow::openMemory()
{
    // The memory belongs to the workspace's database: the one shown, or the default one.
    QString error;
    if (!ensureWorkspace(defaultDatabase(), &error)) {
        QMessageBox::warning(this, tr("Optimisation memory"), error);
        return false;
    }
    auto *dialog = new MemoryDialog(m_workspace->store(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // The dialog reads and writes through the workspace's store: it closes with it.
    connect(m_workspace, &Workspace::storeReplacing, dialog, [dialog] {
        dialog->model()->detach();
        dialog->close();
    });
    dialog->show();
    return true;
}

RunController *MainWindow::startLaunch(const LaunchSettings &settings, int seedOffset,
                                       QString *error)
{
    if (const std::optional<QString> refusal =
            LaunchCheck::refusal(settings, m_workspace->tasks(), m_workspace->gpus())) {
        if (error)
            *error = *refusal;
        return nullptr;
    }
    if (!ensureWorkspace(settings.database, error))
        return nullptr;
    QString why;
    const std::optional<RunArguments::Parsed> parsed =
        RunArguments::parse(settings.arguments(seedOffset), &why);
    RunController *controller = parsed ? m_workspace->startRun(*parsed, &why) : nullptr;
    if (!controller && error)
        *error = why;
    return controller;
}

bool MainWindow::startRuns(const LaunchSettings &settings, QString *error)
{
    for (int i = 0; i < settings.seeds; ++i) {
        RunController *controller = startLaunch(settings, i, error);
        if (!controller)
            return false;
        if (i == 0)
            showRunWhenStarted(controller);
    }
    if (m_settings == Settings::Remember) {
        QSettings s;
        settings.save(s);
    }
    return true;
}

RunController *MainWindow::startRunFromArguments(const QStringList &arguments,
                                                 const QString &database, QString *error, bool show)
{
    QString why;
    std::optional<RunArguments::Parsed> parsed = RunArguments::parse(arguments, &why);
    if (!parsed) {
        if (error)
            *error = why;
        return nullptr;
    }
    const QString path = DatabaseChoice::forRunArguments(parsed->database, database);
    if (!ensureWorkspace(path, error))
        return nullptr;
    RunController *controller = m_workspace->startRun(*parsed, &why);
    if (!controller) {
        if (error)
            *error = why;
        return nullptr;
    }
    if (show)
        showRunWhenStarted(controller);
    return controller;
}

void MainWindow::showRunWhenStarted(RunController *controller)
{
    connect(
        controller, &RunController::started, this,
        [this, controller](qint64 runId) {
            refreshRuns();
            if (!m_document->hasRun() || m_document->run().id != runId) {
                m_selection->clear();
                QString error;
                if (!loadRun(runId, &error))
                    warnOf(error);
            }
            updateLiveSource();
            Q_UNUSED(controller);
        },
        Qt::SingleShotConnection);
}

bool MainWindow::resumeShownRun(QString *error)
{
    const QString refusal = LaunchCheck::resumeRefusal(shownRun());
    if (!refusal.isEmpty()) {
        if (error)
            *error = refusal;
        return false;
    }
    const RunRecord run = m_document->run();
    // Its process may have died, or may be making it right now elsewhere.
    if (const std::optional<LaunchCheck::Question> question = LaunchCheck::resumeConfirmation(run);
        question && isVisible() &&
        QMessageBox::question(this, question->title, question->text) != QMessageBox::Yes)
        return false;
    if (!ensureWorkspace(m_document->databasePath(), error))
        return false;
    QString why;
    RunController *controller = m_workspace->resumeRun(run.id, &why);
    if (!controller) {
        if (error)
            *error = why;
        return false;
    }
    showRunWhenStarted(controller);
    return true;
}

bool MainWindow::openLauncher()
{
    LaunchSettings settings;
    if (m_settings == Settings::Remember)
        settings = LaunchSettings::load(QSettings());
    settings.database = DatabaseChoice::forLauncher(settings.database, openDatabasePath());
    // The task on screen is the one a person means to search again.
    if (const RunRecord *shown = shownRun(); shown && !shown->tasks.isEmpty())
        settings.tasks = shown->tasks;
    RunLauncherDialog dialog(m_workspace->tasks(), m_workspace->gpus(), m_document->runs(), this);
    dialog.setSettings(settings);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    QString error;
    if (!startRuns(dialog.settings(), &error)) {
        QMessageBox::warning(this, tr("New run"), error);
        return false;
    }
    return true;
}

bool MainWindow::stopRuns(int timeoutMs)
{
    return m_workspace->stopAll(timeoutMs);
}

void MainWindow::updateLiveSource()
{
    for (const QMetaObject::Connection &c : std::as_const(m_liveConnections))
        disconnect(c);
    m_liveConnections.clear();
    RunController *controller = nullptr;
    if (m_document->hasRun() && m_workspace->path() == m_document->databasePath())
        controller = m_workspace->controllerFor(m_document->run().id);
    m_live = controller && controller->isLive() ? controller : nullptr;
    if (!m_live) {
        updateBackgroundLine();
        m_document->setFollowing(m_document->isLive());
        updateRunActions();
        return;
    }
    RunDocument *doc = m_document;
    RunController *c = m_live;
    m_document->setFollowing(false);
    m_liveConnections
        << connect(c, &RunController::candidateAdded, doc, &RunDocument::addCandidate)
        << connect(c, &RunController::candidateEvaluated, doc, &RunDocument::addEvaluation)
        << connect(c, &RunController::candidatesEvicted, doc, &RunDocument::markEvicted)
        << connect(c, &RunController::progressed, this,
                   [this, c](qint64, const RunProgress &p) {
                       m_progress->showProgress(p, ControllerStatus::name(c->state()),
                                                otherLiveRuns());
                   })
        << connect(c, &RunController::stateChanged, this, [doc, c](RunController::State state) {
               doc->updateRunState(c->runId(), ControllerStatus::recordStatus(state),
                                   c->progress().used);
           });
    // When it ends: the final status, then the log is the source again (nothing more comes).
    m_liveConnections << connect(c, &RunController::finished, this, &MainWindow::updateLiveSource,
                                 Qt::QueuedConnection)
                      << connect(c, &RunController::failed, this, &MainWindow::updateLiveSource,
                                 Qt::QueuedConnection);
    doc->updateRunState(c->runId(), ControllerStatus::recordStatus(c->state()), c->progress().used);
    m_progress->showProgress(c->progress(), ControllerStatus::name(c->state()), otherLiveRuns());
    updateRunActions();
}

int MainWindow::otherLiveRuns() const
{
    int others = 0;
    for (RunController *c : m_workspace->controllers())
        others += c != m_live && (c->isLive() || c->state() == RunController::State::Queued);
    return others;
}

ManualEditTab *MainWindow::editCopyOfCurrent()
{
    const qint64 id = m_selection->current();
    const int row = m_document->rowOf(id);
    if (!RunActionState::canEditCopy(shownRun(), row >= 0 ? &m_document->at(row) : nullptr)) {
        tell(RunActionState::editCopyRefusal());
        return nullptr;
    }
    const std::optional<CandidateRecord> record = m_document->candidate(id);
    if (!record)
        return nullptr;
    ManualEditTab *tab = m_editor->openCopy(*record, m_document->databasePath());
    m_editorDock->show();
    m_editorDock->raise();
    tab->editor()->setFocus();
    return tab;
}

void MainWindow::submitTab(ManualEditTab *tab)
{
    QString error = EditedCopySubmission::refusal(tab->source());
    if (!error.isEmpty()) {
        tab->setResult(false, 0, EvaluationResult(), error);
        return;
    }
    // The copy's own workspace, whatever the window shows now; the view stays where it is.
    if (!m_workspace->open(tab->database(), &error)) {
        tab->setResult(false, 0, EvaluationResult(),
                       tr("cannot open %1 for writing: %2").arg(tab->database(), error));
        return;
    }
    tab->setSubmitted(m_workspace->submit(
        EditedCopySubmission::request(tab->runId(), tab->parentId(), tab->source())));
}

bool MainWindow::evaluateFile(const QString &path, const QString &task, QString *error)
{
    QString refusal;
    const std::optional<CandidateFile> file = CandidateFile::read(path, &refusal);
    if (file) {
        FileEvaluationPlan plan =
            FileEvaluationPlan::make(*file, shownRun(), task, m_workspace->tasks().names());
        refusal = plan.refusal();
        if (refusal.isEmpty())
            return plan.joinsRun() ? evaluateFileInRun(*file, plan, error)
                                   : evaluateFileAlone(*file, plan, error);
    }
    if (error)
        *error = refusal;
    return false;
}

bool MainWindow::askTask(FileEvaluationPlan &plan)
{
    const std::optional<FileEvaluationPlan::TaskQuestion> question = plan.taskQuestion();
    if (!question)
        return true;
    bool ok = false;
    const QString chosen = QInputDialog::getItem(this, question->title, question->label,
                                                 question->choices, 0, false, &ok);
    if (!ok)
        return false;
    plan.setTask(chosen);
    return true;
}

bool MainWindow::evaluateFileInRun(const CandidateFile &file, FileEvaluationPlan &plan,
                                   QString *error)
{
    if (!askTask(plan))
        return false;
    if (!ensureWorkspace(m_document->databasePath(), error))
        return false;
    m_fileTickets.insert(m_workspace->submit(plan.submission()), file.path());
    tell(plan.startedMessage());
    return true;
}

// No search run shown: judged alone, as an evaluation run of the workspace.
bool MainWindow::evaluateFileAlone(const CandidateFile &file, FileEvaluationPlan &plan,
                                   QString *error)
{
    if (!askTask(plan))
        return false;
    if (plan.needsGpu()) {
        const QString refusal = plan.gpuRefusal(m_workspace->gpus());
        if (!refusal.isEmpty()) {
            if (error)
                *error = refusal;
            return false;
        }
    }
    if (!ensureWorkspace(defaultDatabase(), error))
        return false;
    m_fileTickets.insert(m_workspace->evaluateAlone(plan.task(), plan.backend(m_workspace->tasks()),
                                                    file.source(), file.absoluteFilePath()),
                         file.path());
    tell(plan.startedMessage());
    return true;
}

// Whether the shown run is the workspace's run `runId` (run ids repeat across databases).
bool MainWindow::showsWorkspaceRun(qint64 runId) const
{
    return m_document->hasRun() && m_document->run().id == runId &&
           m_document->databasePath() == m_workspace->path();
}

void MainWindow::onManualStored(int ticket, const CandidateRecord &candidate)
{
    if (showsWorkspaceRun(candidate.runId)) {
        m_document->addCandidate(candidate.runId, candidate);
        m_document->flushPushed(); // one node a person is waiting for: show it now
    }
    if (ManualEditTab *tab = m_editor->tabForTicket(ticket))
        tab->setStored(candidate.id);
}

void MainWindow::onManualFinished(int ticket, bool ok, const CandidateRecord &candidate,
                                  const EvaluationResult &result, const QString &error)
{
    // Another database on screen: the result is stored in its own, and told, not shown here.
    const bool ownDatabase = m_document->databasePath() == m_workspace->path();
    if (ok && ownDatabase) {
        if (!showsWorkspaceRun(candidate.runId)) {
            refreshRuns(); // an evaluation run of its own
            loadRun(candidate.runId);
        }
        m_document->addEvaluation(candidate.runId, candidate.id, result);
        m_document->flushPushed();
    } else if (ok) {
        tell(tr("#%1 (run #%2 of %3): %4")
                 .arg(candidate.id)
                 .arg(candidate.runId)
                 .arg(QFileInfo(m_workspace->path()).fileName(), verdictName(result.verdict)));
    }
    if (ManualEditTab *tab = m_editor->tabForTicket(ticket)) {
        tab->setResult(ok, candidate.id, result, error);
        if (ok && ownDatabase)
            m_selection->setCurrent(candidate.id);
    }
    if (!m_fileTickets.contains(ticket))
        return;
    const QString path = m_fileTickets.take(ticket);
    if (ok && ownDatabase) {
        m_selection->setCurrent(candidate.id);
        showView(QStringLiteral("report"));
        tell(tr("%1: %2").arg(QFileInfo(path).fileName(), verdictName(result.verdict)));
    } else if (!ok) {
        warnOf(tr("%1 was not judged: %2").arg(QFileInfo(path).fileName(), error));
    }
    emit fileEvaluated(ok, candidate.id, result, error);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls()) {
        if (url.isLocalFile() && CandidateFile::isCandidateFile(url.toLocalFile())) {
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls()) {
        if (!url.isLocalFile())
            continue;
        QString error;
        if (!evaluateFile(url.toLocalFile(), QString(), &error) && !error.isEmpty())
            warnOf(error);
    }
    event->acceptProposedAction();
}

} // namespace kiln
