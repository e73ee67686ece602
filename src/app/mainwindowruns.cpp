// MainWindow, continued: starting, watching and steering runs, and hand-written candidates
// (editable copies and dropped files). The window's layout and browsing live in mainwindow.cpp.
#include "mainwindow.h"

#include "memorydialog.h"
#include "models/memorytablemodel.h"

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
#include "models/candidateselection.h"
#include "models/launchsettings.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolBar>

namespace kiln {

namespace {

constexpr qint64 maxCandidateBytes = 1 << 20;

QString stateName(RunController::State state)
{
    switch (state) {
    case RunController::State::Queued:
        return QObject::tr("queued");
    case RunController::State::Starting:
        return QObject::tr("starting");
    case RunController::State::Running:
        return QObject::tr("running");
    case RunController::State::Paused:
        return QObject::tr("paused");
    case RunController::State::Stopping:
        return QObject::tr("stopping");
    case RunController::State::Finished:
        return QObject::tr("finished");
    case RunController::State::Cancelled:
        return QObject::tr("stopped");
    case RunController::State::Failed:
        return QObject::tr("failed");
    }
    return {};
}

RunRecord::Status recordStatus(RunController::State state)
{
    switch (state) {
    case RunController::State::Paused:
        return RunRecord::Status::Paused;
    case RunController::State::Finished:
        return RunRecord::Status::Finished;
    case RunController::State::Cancelled:
        return RunRecord::Status::Cancelled;
    case RunController::State::Failed:
        return RunRecord::Status::Failed;
    default:
        return RunRecord::Status::Running;
    }
}

bool isCandidateFile(const QString &path)
{
    static const QStringList suffixes{QStringLiteral("cu"),  QStringLiteral("cpp"),
                                      QStringLiteral("cc"),  QStringLiteral("cxx"),
                                      QStringLiteral("c++"), QStringLiteral("py")};
    return suffixes.contains(QFileInfo(path).suffix().toLower());
}

} // namespace

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
            statusBar()->showMessage(error, 8000);
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
    connect(m_selection, &CandidateSelection::currentChanged, this, &MainWindow::updateRunActions);
    updateRunActions();
}

void MainWindow::updateRunActions()
{
    Ui::MainWindow &ui = *m_ui;
    const RunController::State state = m_live ? m_live->state() : RunController::State::Finished;
    const bool live = m_live && m_live->isLive();
    ui.actionPauseRun->setEnabled(live && state == RunController::State::Running);
    ui.actionResumeRun->setEnabled(live && state == RunController::State::Paused);
    ui.actionStopRun->setEnabled(live && state != RunController::State::Stopping);
    const bool search = m_document->hasRun() && m_document->run().kind == QLatin1String("search");
    ui.actionContinueRun->setEnabled(search && !live &&
                                     m_document->run().status != RunRecord::Status::Finished);
    const int row = m_document->rowOf(m_selection->current());
    ui.actionEditCopy->setEnabled(search && row >= 0 && !m_document->at(row).placeholder);
    m_code->setEditCopyEnabled(ui.actionEditCopy->isEnabled());
}

void MainWindow::watchController(RunController *controller)
{
    connect(controller, &RunController::stateChanged, this, [this] {
        refreshRuns();
        updateRunActions();
    });
    connect(controller, &RunController::failed, this, [this](qint64, const QString &error) {
        statusBar()->showMessage(tr("The run could not start: %1").arg(error), 15000);
    });
    connect(controller, &RunController::finished, this,
            [this, controller](qint64 runId, const QString &reason) {
                statusBar()->showMessage(
                    tr("Run #%1 %2: %3").arg(runId).arg(stateName(controller->state()), reason),
                    10000);
            });
}

QString MainWindow::defaultDatabase() const
{
    if (m_document->isOpen())
        return m_document->databasePath();
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(folder);
    return QDir(folder).filePath(QStringLiteral("workspace.db"));
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

bool MainWindow::startRuns(const LaunchSettings &settings, QString *error)
{
    const QList<LaunchSettings::Problem> problems =
        settings.problems(m_workspace->tasks(), m_workspace->gpus(), [](const QString &name) {
            return !qEnvironmentVariable(qPrintable(name)).isEmpty();
        });
    if (!problems.isEmpty()) {
        if (error)
            *error = problems.first().message;
        return false;
    }
    if (!ensureWorkspace(settings.database, error))
        return false;
    for (int i = 0; i < settings.seeds; ++i) {
        QString why;
        const std::optional<RunArguments::Parsed> parsed =
            RunArguments::parse(settings.arguments(i), &why);
        RunController *controller = parsed ? m_workspace->startRun(*parsed, &why) : nullptr;
        if (!controller) {
            if (error)
                *error = why;
            return false;
        }
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
    const QString path = !parsed->database.isEmpty() ? parsed->database
                         : !database.isEmpty()       ? database
                                                     : QStringLiteral("kiln.db");
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
                    statusBar()->showMessage(error, 8000);
            }
            updateLiveSource();
            Q_UNUSED(controller);
        },
        Qt::SingleShotConnection);
}

bool MainWindow::resumeShownRun(QString *error)
{
    if (!m_document->hasRun() || m_document->run().kind != QLatin1String("search")) {
        if (error)
            *error = tr("Pick a search run to resume.");
        return false;
    }
    const RunRecord run = m_document->run();
    if (run.status == RunRecord::Status::Running || run.status == RunRecord::Status::Paused) {
        // Its process may have died, or may be making it right now elsewhere.
        if (isVisible() &&
            QMessageBox::question(this, tr("Resume run #%1").arg(run.id),
                                  tr("Run #%1 is marked %2. Resume it only if no other process "
                                     "is still making it: two writers would corrupt it.")
                                      .arg(run.id)
                                      .arg(RunRecord::statusName(run.status))) != QMessageBox::Yes)
            return false;
    }
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
    if (m_document->isOpen() || settings.database.isEmpty())
        settings.database = defaultDatabase();
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
        m_progress->setVisible(false);
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
                       m_progress->showProgress(p, stateName(c->state()), otherLiveRuns());
                   })
        << connect(c, &RunController::stateChanged, this, [doc, c](RunController::State state) {
               doc->updateRunState(c->runId(), recordStatus(state), c->progress().used);
           });
    // When it ends: the final status, then the log is the source again (nothing more comes).
    m_liveConnections << connect(c, &RunController::finished, this, &MainWindow::updateLiveSource,
                                 Qt::QueuedConnection)
                      << connect(c, &RunController::failed, this, &MainWindow::updateLiveSource,
                                 Qt::QueuedConnection);
    doc->updateRunState(c->runId(), recordStatus(c->state()), c->progress().used);
    m_progress->showProgress(c->progress(), stateName(c->state()), otherLiveRuns());
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
    if (row < 0 || m_document->at(row).placeholder ||
        m_document->run().kind != QLatin1String("search")) {
        statusBar()->showMessage(tr("Select a candidate of a search run to edit a copy."), 5000);
        return nullptr;
    }
    const std::optional<CandidateRecord> record = m_document->candidate(id);
    if (!record)
        return nullptr;
    ManualEditTab *tab = m_editor->openCopy(*record);
    m_editorDock->show();
    m_editorDock->raise();
    tab->editor()->setFocus();
    return tab;
}

void MainWindow::submitTab(ManualEditTab *tab)
{
    QString error;
    if (tab->source().trimmed().isEmpty()) {
        tab->setResult(false, 0, EvaluationResult(), tr("the source is empty"));
        return;
    }
    if (!ensureWorkspace(m_document->databasePath(), &error)) {
        tab->setResult(false, 0, EvaluationResult(), error);
        return;
    }
    ManualSubmission::Request request;
    request.runId = tab->runId();
    request.parent = tab->parentId();
    request.source = tab->source();
    request.note = tr("edited in the workbench from #%1").arg(tab->parentId());
    tab->setSubmitted(m_workspace->submit(request));
}

bool MainWindow::evaluateFile(const QString &path, const QString &task, QString *error)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!isCandidateFile(path))
        return fail(
            tr("%1 is not a kernel source (.cu, .cpp, .cc, .cxx)").arg(QFileInfo(path).fileName()));
    QFile file(path);
    if (file.size() > maxCandidateBytes)
        return fail(tr("%1 is larger than 1 MiB").arg(QFileInfo(path).fileName()));
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("cannot read %1: %2").arg(path, file.errorString()));
    const QString source = QString::fromUtf8(file.readAll());
    if (source.trimmed().isEmpty())
        return fail(tr("%1 is empty").arg(QFileInfo(path).fileName()));
    const bool cudaFile = QFileInfo(path).suffix().toLower() == QLatin1String("cu");
    const QString note = tr("from the file %1").arg(QFileInfo(path).fileName());

    if (m_document->hasRun() && m_document->run().kind == QLatin1String("search")) {
        const RunRecord run = m_document->run();
        const bool cudaRun = run.backend == QLatin1String("cuda");
        if (cudaFile != cudaRun)
            return fail(tr("run #%1 judges %2 candidates; %3 is a %4 file")
                            .arg(run.id)
                            .arg(cudaRun ? tr("CUDA (.cu)") : tr("CPU (.cpp)"),
                                 QFileInfo(path).fileName(),
                                 cudaFile ? QStringLiteral(".cu") : QStringLiteral("C++")));
        QString chosen = task.isEmpty() ? run.tasks.value(0) : task;
        if (task.isEmpty() && run.tasks.size() > 1) {
            bool ok = false;
            chosen = QInputDialog::getItem(this, tr("Evaluate %1").arg(QFileInfo(path).fileName()),
                                           tr("Task of the suite:"), run.tasks, 0, false, &ok);
            if (!ok)
                return false;
        }
        if (!ensureWorkspace(m_document->databasePath(), error))
            return false;
        ManualSubmission::Request request;
        request.runId = run.id;
        request.task = chosen;
        request.source = source;
        request.note = note;
        m_fileTickets.insert(m_workspace->submit(request), path);
        statusBar()->showMessage(
            tr("Verifying %1 on run #%2's inputs…").arg(QFileInfo(path).fileName()).arg(run.id));
        return true;
    }
    // No search run shown: judged alone, as an evaluation run of the workspace.
    QString chosen = task;
    if (chosen.isEmpty()) {
        bool ok = false;
        chosen = QInputDialog::getItem(this, tr("Evaluate %1").arg(QFileInfo(path).fileName()),
                                       tr("Task:"), m_workspace->tasks().names(), 0, false, &ok);
        if (!ok)
            return false;
    }
    if (cudaFile && !m_workspace->gpus().usable)
        return fail(tr("%1 is a CUDA kernel, and there is no usable GPU: %2")
                        .arg(QFileInfo(path).fileName(), m_workspace->gpus().reason));
    if (!ensureWorkspace(defaultDatabase(), error))
        return false;
    // A KernelBench problem has one backend; otherwise the file's kind decides.
    const Task *chosenTask = m_workspace->tasks().task(chosen);
    const Backend backend = chosenTask && chosenTask->isKernelBench() ? Backend::Torch
                            : cudaFile                                ? Backend::Cuda
                                                                      : Backend::Cpu;
    m_fileTickets.insert(
        m_workspace->evaluateAlone(chosen, backend, source, QFileInfo(path).absoluteFilePath()),
        path);
    statusBar()->showMessage(
        tr("Verifying %1 against %2…").arg(QFileInfo(path).fileName(), chosen));
    return true;
}

void MainWindow::onManualStored(int ticket, const CandidateRecord &candidate)
{
    if (m_document->hasRun() && candidate.runId == m_document->run().id) {
        m_document->addCandidate(candidate.runId, candidate);
        m_document->flushPushed(); // one node a person is waiting for: show it now
    }
    if (ManualEditTab *tab = m_editor->tabForTicket(ticket))
        tab->setStored(candidate.id);
}

void MainWindow::onManualFinished(int ticket, bool ok, const CandidateRecord &candidate,
                                  const EvaluationResult &result, const QString &error)
{
    if (ok) {
        if (!m_document->hasRun() || candidate.runId != m_document->run().id) {
            refreshRuns(); // an evaluation run of its own
            loadRun(candidate.runId);
        }
        m_document->addEvaluation(candidate.runId, candidate.id, result);
        m_document->flushPushed();
    }
    if (ManualEditTab *tab = m_editor->tabForTicket(ticket)) {
        tab->setResult(ok, candidate.id, result, error);
        if (ok)
            m_selection->setCurrent(candidate.id);
    }
    if (!m_fileTickets.contains(ticket))
        return;
    const QString path = m_fileTickets.take(ticket);
    if (ok) {
        m_selection->setCurrent(candidate.id);
        showView(QStringLiteral("report"));
        statusBar()->showMessage(
            tr("%1: %2").arg(QFileInfo(path).fileName(), verdictName(result.verdict)), 10000);
    } else {
        statusBar()->showMessage(tr("%1 was not judged: %2").arg(QFileInfo(path).fileName(), error),
                                 15000);
    }
    emit fileEvaluated(ok, candidate.id, result, error);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls()) {
        if (url.isLocalFile() && isCandidateFile(url.toLocalFile())) {
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
            statusBar()->showMessage(error, 15000);
    }
    event->acceptProposedAction();
}

} // namespace kiln
