#include "mainwindow.h"

#include "candidatespanel.h"
#include "codepanel.h"
#include "commandlineoptions.h"
#include "diagnosispanel.h"
#include "diffpanel.h"
#include "doctordialog.h"
#include "helpdialog.h"
#include "lineageview.h"
#include "manualeditorpanel.h"
#include "memorydialog.h"
#include "noticelabel.h"
#include "plotspanel.h"
#include "profilepanel.h"
#include "replaybar.h"
#include "reportpanel.h"
#include "runprogresswidget.h"
#include "startpage.h"
#include "steadylabel.h"
#include "svgiconengine.h"
#include "transcriptpanel.h"
#include "ui_mainwindow.h"

#include "models/candidatehighlight.h"
#include "models/candidateselection.h"
#include "models/candidatetablemodel.h"
#include "models/diagnosismodel.h"
#include "models/rules/backgroundruns.h"
#include "models/rules/candidatepicks.h"
#include "models/rules/recentdatabases.h"
#include "models/rules/runsummarytext.h"
#include "models/rules/runtoopen.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"

#include <QAbstractItemView>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

static void initKilnResources()
{
    // The resources live in a static library; nothing else would pull them in.
    Q_INIT_RESOURCE(kiln);
}

namespace kiln {

MainWindow::MainWindow(Settings settings, QWidget *parent)
    : QMainWindow(parent), m_ui(new Ui::MainWindow), m_settings(settings),
      m_document(new RunDocument(this)), m_selection(new CandidateSelection(this)),
      m_workspace(new Workspace(this))
{
    initKilnResources();
    m_ui->setupUi(this);
    setWindowIcon(SvgIconEngine::icon(QStringLiteral("kiln")));
    createPanels();
    setupDocks();
    setupActions();
    setupRunActions();
    setupComparisonActions();
    setupWorkshopActions();
    setupHelpActions();
    setupStartPage();
    setAcceptDrops(true);
    connectSelection();
    setupTimers();
    connectDocument();
    restoreLayout();
    updateStatus();
    updateTitle();
}

void MainWindow::createPanels()
{
    m_lineage = new LineageView(m_document, m_selection, this);
    setCentralWidget(m_lineage);
    delete m_ui->centralwidget;
    m_ui->centralwidget = nullptr;
    m_candidates = new CandidatesPanel(m_document, m_selection);
    // A diagnosis finding's evidence, ringed in the tree, tinted in the table, marked on the plot.
    m_highlight = new CandidateHighlight(this);
    m_lineage->setHighlight(m_highlight);
    m_candidates->tableModel()->setHighlight(m_highlight);
    m_diagnosisModel = new DiagnosisModel(m_document, this);
    m_diagnosis = new DiagnosisPanel(m_diagnosisModel, m_highlight, m_selection);
    m_code = new CodePanel;
    m_diff = new DiffPanel(m_document);
    m_report = new ReportPanel;
    m_transcript = new TranscriptPanel;
    m_profile = new ProfilePanel;
    m_editor = new ManualEditorPanel;
}

// The selection drives the panels; the report and the diff ask for other lines and candidates.
void MainWindow::connectSelection()
{
    connect(m_selection, &CandidateSelection::currentChanged, this, &MainWindow::onCurrentChanged);
    connect(m_selection, &CandidateSelection::compareChanged, this, [this] {
        if (!m_resettingCompare)
            updateDiff();
    });
    connect(m_report, &ReportPanel::lineRequested, this, [this](int line) {
        m_codeDock->show();
        m_codeDock->raise();
        m_code->goToLine(line);
    });
    connect(m_diff, &DiffPanel::leftRequested, m_selection, &CandidateSelection::setCompare);
    connect(m_diff, &DiffPanel::rightRequested, m_selection, &CandidateSelection::setCurrent);
}

void MainWindow::setupTimers()
{
    // A live run changes the counts many times a second: the line is rewritten at most ten
    // times a second for that.
    m_statusTimer.setSingleShot(true);
    m_statusTimer.setInterval(100);
    connect(&m_statusTimer, &QTimer::timeout, this, &MainWindow::updateStatus);
    m_runListTimer.setInterval(2000);
    connect(&m_runListTimer, &QTimer::timeout, this, &MainWindow::refreshRunsIfChanged);
    m_runListTimer.start();
}

void MainWindow::connectDocument()
{
    connect(m_document, &RunDocument::runLoaded, this, [this] {
        updateStatus();
        updateTitle();
    });
    auto statusSoon = [this] {
        if (!m_statusTimer.isActive())
            m_statusTimer.start();
    };
    connect(m_document, &RunDocument::candidatesAppended, this, statusSoon);
    connect(m_document, &RunDocument::bestChanged, this, statusSoon);
    connect(m_document, &RunDocument::runChanged, this, [this] {
        updateStatus();
        refreshRuns();
        updateRunActions();
    });
    connect(m_document, &RunDocument::candidateChanged, this, [this, statusSoon](int row) {
        statusSoon();
        // The verifier just reported on the candidate on screen: show what it found.
        if (m_selection->current() && m_document->rowOf(m_selection->current()) == row)
            showCurrent();
    });
    connect(m_document, &RunDocument::loadStarted, this,
            [this](qint64 runId) { tell(tr("Reading run #%1…").arg(runId)); });
    connect(m_document, &RunDocument::loadFinished, this, [this](bool ok, const QString &error) {
        m_notices->clearShown();
        if (!ok) {
            warnOf(error);
            return;
        }
        m_runCombo->setCurrentIndex(m_runCombo->findData(m_document->run().id));
        selectAfterLoad(m_pendingSelect);
        m_pendingSelect = 0;
    });
    connect(m_document, &RunDocument::runLoaded, this, &MainWindow::updateLiveSource);
    for (auto signal : {&RunDocument::runLoaded, &RunDocument::runChanged})
        connect(m_document, signal, this, &MainWindow::updateStartPage);
    connect(m_document, &RunDocument::loadStarted, this, &MainWindow::updateStartPage);
    connect(m_document, &RunDocument::loadFinished, this, &MainWindow::updateStartPage);
}

void MainWindow::restoreLayout()
{
    resize(1600, 1000);
    applyDefaultLayout();
    m_defaultState = saveState();
    if (m_settings == Settings::Remember) {
        QSettings s;
        restoreGeometry(s.value(QStringLiteral("mainWindow/geometry")).toByteArray());
        restoreState(s.value(QStringLiteral("mainWindow/state")).toByteArray());
    }
}

MainWindow::~MainWindow()
{
    // The runs end before the window's members do: their last signals must not reach a window
    // half taken apart (the workspace is a child, deleted after them otherwise).
    for (RunController *controller : m_workspace->controllers())
        controller->disconnect(this);
    m_workspace->disconnect(this);
    delete m_workspace;
    m_workspace = nullptr;
}

void MainWindow::setupDocks()
{
    auto makeDock = [this](const QString &title, const QString &name, QWidget *content) {
        auto *dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        dock->setWidget(content);
        dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                          QDockWidget::DockWidgetClosable);
        return dock;
    };
    m_candidatesDock = makeDock(tr("Candidates"), QStringLiteral("candidatesDock"), m_candidates);
    m_codeDock = makeDock(tr("Code"), QStringLiteral("codeDock"), m_code);
    m_diffDock = makeDock(tr("Diff"), QStringLiteral("diffDock"), m_diff);
    m_reportDock = makeDock(tr("Verifier report"), QStringLiteral("reportDock"), m_report);
    m_transcriptDock = makeDock(tr("Transcript"), QStringLiteral("transcriptDock"), m_transcript);
    m_profileDock = makeDock(tr("Profile"), QStringLiteral("profileDock"), m_profile);
    m_editorDock = makeDock(tr("Editor"), QStringLiteral("editorDock"), m_editor);

    m_plots = new PlotsPanel(m_document, m_selection);
    m_plots->setHighlight(m_highlight);
    m_diagnosisDock = makeDock(tr("Diagnosis"), QStringLiteral("diagnosisDock"), m_diagnosis);
    m_replay = new ReplayBar(m_document);
    auto *replayBar = new QToolBar(tr("Growth replay"), this);
    replayBar->setObjectName(QStringLiteral("replayToolBar"));
    replayBar->addWidget(m_replay);
    addToolBar(Qt::BottomToolBarArea, replayBar);
    m_plotsDock = makeDock(tr("Plots"), QStringLiteral("plotsDock"), m_plots);

    // The table spans the full width at the bottom, where all its columns fit; the right area
    // holds the per-candidate panels above it.
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    for (QDockWidget *dock : {m_codeDock, m_diffDock, m_reportDock, m_transcriptDock, m_profileDock,
                              m_editorDock, m_plotsDock, m_diagnosisDock, m_candidatesDock})
        m_ui->menuView->insertAction(m_ui->actionResetLayout, dock->toggleViewAction());
    m_ui->menuView->insertAction(m_ui->actionResetLayout, replayBar->toggleViewAction());
    m_ui->menuView->insertSeparator(m_ui->actionResetLayout);
}

void MainWindow::applyDefaultLayout()
{
    for (QDockWidget *dock : {m_codeDock, m_diffDock, m_reportDock, m_transcriptDock, m_profileDock,
                              m_editorDock, m_plotsDock, m_diagnosisDock, m_candidatesDock}) {
        dock->setFloating(false);
        dock->show();
    }
    addDockWidget(Qt::RightDockWidgetArea, m_codeDock);
    tabifyDockWidget(m_codeDock, m_diffDock);
    tabifyDockWidget(m_diffDock, m_reportDock);
    tabifyDockWidget(m_reportDock, m_transcriptDock);
    tabifyDockWidget(m_transcriptDock, m_profileDock);
    tabifyDockWidget(m_profileDock, m_editorDock);
    tabifyDockWidget(m_editorDock, m_plotsDock);
    tabifyDockWidget(m_plotsDock, m_diagnosisDock);
    addDockWidget(Qt::BottomDockWidgetArea, m_candidatesDock);
    m_codeDock->raise();
    resizeDocks({m_codeDock}, {width() * 46 / 100}, Qt::Horizontal);
    resizeDocks({m_candidatesDock}, {height() * 27 / 100}, Qt::Vertical);
}

void MainWindow::setupActions()
{
    setActionIcons();
    connectViewActions();
    QActionGroup *layouts = setupLayoutActions();
    setupToolBar(layouts);
    // Notices first, with a width of their own: the run summary cannot crowd them out (a
    // temporary QStatusBar message had no room beside a stretched permanent widget).
    m_notices = new Notices(this);
    m_noticeLabel = new NoticeLabel(*m_notices, this);
    statusBar()->addPermanentWidget(m_noticeLabel, 1);
    m_statusLabel = new SteadyLabel(this);
    statusBar()->addPermanentWidget(m_statusLabel, 4);
}

void MainWindow::setActionIcons()
{
    Ui::MainWindow &ui = *m_ui;
    ui.actionOpen->setIcon(SvgIconEngine::icon(QStringLiteral("open")));
    ui.actionReload->setIcon(SvgIconEngine::icon(QStringLiteral("reload")));
    ui.actionFit->setIcon(SvgIconEngine::icon(QStringLiteral("fit")));
    ui.actionZoomIn->setIcon(SvgIconEngine::icon(QStringLiteral("zoom-in")));
    ui.actionZoomOut->setIcon(SvgIconEngine::icon(QStringLiteral("zoom-out")));
    ui.actionShowLegend->setIcon(SvgIconEngine::icon(QStringLiteral("legend")));
    ui.actionSelectBest->setIcon(SvgIconEngine::icon(QStringLiteral("best")));
    ui.actionFind->setIcon(SvgIconEngine::icon(QStringLiteral("find")));
    ui.actionExpandAll->setIcon(SvgIconEngine::icon(QStringLiteral("expand")));
}

// File, View and Help: browsing the database and the tree, the layout, the dialogs.
void MainWindow::connectViewActions()
{
    Ui::MainWindow &ui = *m_ui;
    connect(ui.actionOpen, &QAction::triggered, this, &MainWindow::openWithDialog);
    connect(ui.actionReload, &QAction::triggered, this, [this] {
        if (m_document->hasRun()) {
            const qint64 current = m_selection->current();
            loadRun(m_document->run().id);
            if (m_document->rowOf(current) >= 0)
                m_selection->setCurrent(current);
        }
    });
    connect(ui.actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(ui.actionFit, &QAction::triggered, m_lineage, &LineageView::fitToView);
    connect(ui.actionZoomIn, &QAction::triggered, m_lineage, &LineageView::zoomIn);
    connect(ui.actionZoomOut, &QAction::triggered, m_lineage, &LineageView::zoomOut);
    connect(ui.actionExpandAll, &QAction::triggered, m_lineage, &LineageView::expandAll);
    connect(ui.actionShowLegend, &QAction::toggled, m_lineage, &LineageView::setShowLegend);
    connect(ui.actionSelectBest, &QAction::triggered, m_lineage, &LineageView::selectBest);
    connect(ui.actionSelectParent, &QAction::triggered, this, [this] {
        if (const std::optional<qint64> parent =
                CandidatePicks::parentOf(*m_document, m_selection->current()))
            m_selection->setCurrent(*parent);
    });
    connect(ui.actionCompareWithParent, &QAction::triggered, this, [this] {
        m_selection->setCompare(0);
        m_diffDock->show();
        m_diffDock->raise();
    });
    connect(ui.actionResetLayout, &QAction::triggered, this,
            [this] { restoreState(m_defaultState); });
    connect(ui.actionMemory, &QAction::triggered, this, &MainWindow::openMemory);
    connect(ui.actionDoctor, &QAction::triggered, this, [this] {
        auto *dialog = new DoctorDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        dialog->start();
    });
    connect(ui.actionAbout, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Kiln"),
                           tr("<h3>Kiln %1</h3><p>A workbench for inference-time scaling of "
                              "GPU-kernel generation: explore how a search spent its compute and "
                              "why each candidate passed, failed or was flagged.</p>")
                               .arg(QStringLiteral(KILN_VERSION)));
    });
}

QActionGroup *MainWindow::setupLayoutActions()
{
    Ui::MainWindow &ui = *m_ui;
    auto *layouts = new QActionGroup(this);
    for (QAction *a : {ui.actionLayoutAutomatic, ui.actionLayoutTidy, ui.actionLayoutLayered})
        layouts->addAction(a);
    connect(ui.actionLayoutAutomatic, &QAction::triggered, this,
            [this] { m_lineage->setLayoutChoice(LineageView::LayoutChoice::Automatic); });
    connect(ui.actionLayoutTidy, &QAction::triggered, this,
            [this] { m_lineage->setLayoutChoice(LineageView::LayoutChoice::Tidy); });
    connect(ui.actionLayoutLayered, &QAction::triggered, this,
            [this] { m_lineage->setLayoutChoice(LineageView::LayoutChoice::Layered); });
    return layouts;
}

// Toolbar: run picker, then the tree's own tools.
void MainWindow::setupToolBar(QActionGroup *layouts)
{
    Ui::MainWindow &ui = *m_ui;
    auto *runLabel = new QLabel(tr("  Run "), this);
    ui.mainToolBar->addWidget(runLabel);
    m_runCombo = new QComboBox(this);
    m_runCombo->setObjectName(QStringLiteral("runCombo"));
    m_runCombo->setMinimumWidth(440);
    m_runCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    ui.mainToolBar->addWidget(m_runCombo);
    connect(m_runCombo, &QComboBox::activated, this, [this](int index) {
        const qint64 id = m_runCombo->itemData(index).toLongLong();
        if (id && id != m_document->run().id) {
            m_selection->clear();
            m_pendingSelect = 0;
            m_document->loadRunAsync(id);
        }
    });
    ui.mainToolBar->addSeparator();
    ui.mainToolBar->addAction(ui.actionFit);
    ui.mainToolBar->addAction(ui.actionZoomIn);
    ui.mainToolBar->addAction(ui.actionZoomOut);
    ui.mainToolBar->addAction(ui.actionExpandAll);
    auto *layoutButton = new QToolButton(this);
    layoutButton->setIcon(SvgIconEngine::icon(QStringLiteral("tree")));
    layoutButton->setToolTip(tr("Tree layout"));
    layoutButton->setPopupMode(QToolButton::InstantPopup);
    layoutButton->addActions(layouts->actions());
    ui.mainToolBar->addWidget(layoutButton);
    ui.mainToolBar->addAction(ui.actionShowLegend);
    ui.mainToolBar->addSeparator();
    ui.mainToolBar->addAction(ui.actionSelectBest);
    m_findEdit = new QLineEdit(this);
    m_findEdit->setObjectName(QStringLiteral("findEdit"));
    m_findEdit->setPlaceholderText(tr("Find candidate #id"));
    m_findEdit->setClearButtonEnabled(true);
    m_findEdit->addAction(SvgIconEngine::icon(QStringLiteral("find")), QLineEdit::LeadingPosition);
    m_findEdit->setMaximumWidth(200);
    ui.mainToolBar->addWidget(m_findEdit);
    connect(m_findEdit, &QLineEdit::returnPressed, this, &MainWindow::findFromEdit);
    connect(ui.actionFind, &QAction::triggered, this, [this] {
        m_findEdit->setFocus();
        m_findEdit->selectAll();
    });
}

QDockWidget *MainWindow::dockFor(const QString &view) const
{
    if (view == QStringLiteral("table"))
        return m_candidatesDock;
    if (view == QStringLiteral("code"))
        return m_codeDock;
    if (view == QStringLiteral("diff"))
        return m_diffDock;
    if (view == QStringLiteral("report"))
        return m_reportDock;
    if (view == QStringLiteral("transcript"))
        return m_transcriptDock;
    if (view == QStringLiteral("profile"))
        return m_profileDock;
    if (view == QStringLiteral("plots"))
        return m_plotsDock;
    if (view == QStringLiteral("diagnosis"))
        return m_diagnosisDock;
    return nullptr;
}

void MainWindow::showView(const QString &view)
{
    if (view == QStringLiteral("tree")) {
        resizeDocks({m_codeDock}, {width() * 40 / 100}, Qt::Horizontal);
        m_lineage->setFocus();
        return;
    }
    QDockWidget *dock = dockFor(view);
    if (!dock)
        return;
    dock->show();
    dock->raise();
    // Give the panel asked for the room it needs.
    if (view == QStringLiteral("table"))
        resizeDocks({m_candidatesDock}, {height() * 45 / 100}, Qt::Vertical);
    else if (view == QStringLiteral("diff"))
        resizeDocks({m_diffDock}, {width() * 62 / 100}, Qt::Horizontal);
    else
        resizeDocks({dock}, {width() * 48 / 100}, Qt::Horizontal);
}

bool MainWindow::openDatabase(const QString &path, QString *error)
{
    QString why;
    if (!QFileInfo::exists(path)) {
        if (error)
            *error = tr("cannot open database %1: no such file").arg(path);
        return false;
    }
    // Runs of the workspace go on when another database is shown: say so first.
    if (const std::optional<QString> question = backgroundRuns().openQuestion(path);
        question && isVisible() &&
        QMessageBox::question(this, tr("Open database"), *question) != QMessageBox::Yes) {
        if (error)
            error->clear(); // the person said no: nothing to report
        return false;
    }
    m_selection->clear();
    if (!m_document->openDatabase(path, &why)) {
        if (error)
            *error = tr("cannot open database %1: %2").arg(path, why);
        return false;
    }
    if (m_settings == Settings::Remember) {
        QSettings settings;
        settings.setValue(QStringLiteral("lastDatabase"), path);
        RecentDatabases::remember(settings, path);
    }
    refreshRuns();
    updateTitle();
    updateBackgroundLine();
    updateStartPage();
    return true;
}

void MainWindow::refreshRuns()
{
    const QSignalBlocker blocker(m_runCombo);
    m_runCombo->clear();
    const QList<RunRecord> runs = m_document->runs();
    m_runListSeen = runListKey(runs);
    for (auto it = runs.crbegin(); it != runs.crend(); ++it)
        m_runCombo->addItem(RunSummaryText::pickerLabel(*it), it->id);
    if (m_document->hasRun())
        m_runCombo->setCurrentIndex(m_runCombo->findData(m_document->run().id));
}

QList<QPair<qint64, int>> MainWindow::runListKey(const QList<RunRecord> &runs)
{
    QList<QPair<qint64, int>> key;
    for (const RunRecord &r : runs)
        key.append({r.id, int(r.status)});
    return key;
}

void MainWindow::refreshRunsIfChanged()
{
    // Never under an open picker: rebuilding it would close the list the user is reading.
    if (!m_document->isOpen() || m_runCombo->view()->isVisible())
        return;
    if (runListKey(m_document->runs()) != m_runListSeen)
        refreshRuns();
}

bool MainWindow::loadRun(qint64 runId, QString *error)
{
    m_selection->clear();
    QString why;
    if (isVisible()) {
        tell(tr("Reading run #%1…").arg(runId));
        QApplication::setOverrideCursor(Qt::WaitCursor);
        QApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
    }
    const bool loaded = m_document->loadRun(runId, &why);
    if (isVisible()) {
        QApplication::restoreOverrideCursor();
        m_notices->clearShown();
    }
    if (!loaded) {
        if (error)
            *error = why;
        return false;
    }
    m_runCombo->setCurrentIndex(m_runCombo->findData(runId));
    return true;
}

bool MainWindow::applyOptions(const CommandLineOptions &options, QString *error, bool wait)
{
    if (!options.database.isEmpty()) {
        if (!openDatabase(options.database, error))
            return false;
        const RunToOpen choice =
            RunToOpen::choose(m_document->runs(), options.run, options.database);
        if (!choice.refusal.isEmpty()) {
            if (error)
                *error = choice.refusal;
            return false;
        }
        const qint64 runId = choice.runId;
        if (runId && !wait) {
            m_pendingSelect = options.select.value_or(0);
            m_selection->clear();
            m_document->loadRunAsync(runId);
        } else {
            if (runId && !loadRun(runId, error))
                return false;
            const QString refusal =
                options.select ? CandidatePicks::selectRefusal(*m_document, *options.select, runId)
                               : QString();
            if (!refusal.isEmpty()) {
                if (error)
                    *error = refusal;
                return false;
            }
            selectAfterLoad(options.select.value_or(0));
        }
    }
    if (!options.view.isEmpty()) {
        showView(options.view);
        if (!isVisible())
            m_pendingView = options.view;
    }
    return true;
}

void MainWindow::selectAfterLoad(qint64 candidateId)
{
    if (const qint64 id = CandidatePicks::afterLoad(*m_document, candidateId))
        m_selection->setCurrent(id);
}

bool MainWindow::saveScreenshot(const QString &path, QString *error)
{
    if (!isVisible())
        show();
    // Dock sizes and the pending --view settle only once the window has its real geometry.
    for (int i = 0; i < 10; ++i)
        QApplication::processEvents();
    // The plots redraw 300 ms after a change: draw them now, at the size they are shown.
    if (m_plots->isVisible())
        m_plots->refresh();
    const QPixmap pixmap = grab();
    if (pixmap.isNull() || !pixmap.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write screenshot %1").arg(path);
        return false;
    }
    return true;
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (!m_pendingView.isEmpty()) {
        QTimer::singleShot(0, this, [this] {
            showView(m_pendingView);
            m_pendingView.clear();
        });
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // A run going on stops cleanly (the round in flight is abandoned, sandboxes are killed) and
    // stays resumable.
    stopRuns(2000);
    if (m_settings == Settings::Remember) {
        QSettings s;
        s.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
        s.setValue(QStringLiteral("mainWindow/state"), saveState());
    }
    QMainWindow::closeEvent(event);
}

void MainWindow::onCurrentChanged(qint64)
{
    // A new selection compares against its parent again; Ctrl+click picks another.
    m_resettingCompare = true;
    m_selection->setCompare(0);
    m_resettingCompare = false;
    showCurrent();
}

void MainWindow::showCurrent()
{
    const qint64 id = m_selection->current();
    const std::optional<CandidateRecord> record = id ? m_document->candidate(id) : std::nullopt;
    if (!record) {
        const QString why = tr("Select a candidate in the tree or the table.");
        m_code->clear(why);
        m_report->clear(why);
        m_transcript->clear(why);
        m_profile->clear(why);
        m_diff->clear(why);
        return;
    }
    const std::optional<EvaluationResult> result = m_document->evaluation(id);
    m_code->showCandidate(*record, result);
    m_report->showCandidate(*record, result);
    m_transcript->showCandidate(*record);
    showProfiles(*record);
    updateDiff();
}

void MainWindow::updateDiff()
{
    const qint64 current = m_selection->current();
    if (!current) {
        m_diff->clear(tr("Select a candidate to compare it with its parent."));
        return;
    }
    m_diff->showPair(CandidatePicks::diffBase(*m_document, current, m_selection->compare()),
                     current);
}

void MainWindow::openWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open workspace database"), QFileInfo(m_document->databasePath()).absolutePath(),
        tr("Kiln databases (*.db *.sqlite *.kiln);;All files (*)"));
    if (path.isEmpty())
        return;
    if (const QString error = openInBackground(path); !error.isEmpty())
        QMessageBox::warning(this, tr("Open database"), error);
}

// A database chosen in the window (the dialog, the start page, Open recent), read in the
// background: why it could not be opened, or empty (opened, or the person said no).
QString MainWindow::openInBackground(const QString &path)
{
    CommandLineOptions options;
    options.database = path;
    QString error;
    applyOptions(options, &error, false);
    return error;
}

void MainWindow::findFromEdit()
{
    QString text = m_findEdit->text().trimmed();
    if (text.startsWith(QLatin1Char('#')))
        text.remove(0, 1);
    bool ok = false;
    const qint64 id = text.toLongLong(&ok);
    if (!ok || !m_lineage->findCandidate(id))
        tell(tr("No candidate %1 in this run").arg(m_findEdit->text()));
}

QString MainWindow::statusText() const
{
    return m_statusLabel->text();
}

void MainWindow::updateStatus()
{
    m_statusLabel->setText(RunSummaryText::statusLine(*m_document));
}

void MainWindow::updateTitle()
{
    setWindowTitle(RunSummaryText::windowTitle(*m_document));
}

void MainWindow::tell(const QString &text)
{
    m_notices->inform(text);
}

void MainWindow::warnOf(const QString &text)
{
    m_notices->fail(text);
    if (!isVisible())
        return; // a screenshot or a test without a window on screen: the notice is enough
    auto *box = new QMessageBox(QMessageBox::Warning, windowTitle(), text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("failureDialog"));
    box->open();
}

void MainWindow::setupStartPage()
{
    m_startPage = new StartPage(m_lineage);
    m_lineage->installEventFilter(this);
    connect(m_startPage, &StartPage::newRunRequested, this, [this] { openLauncher(); });
    connect(m_startPage, &StartPage::openRequested, this, &MainWindow::openWithDialog);
    connect(m_startPage, &StartPage::guideRequested, this, [this] { openHelp(false); });
    connect(m_startPage, &StartPage::demoRequested, this, [this] {
        QString error;
        if (!startDemoRun(&error))
            warnOf(error);
    });
    connect(m_startPage, &StartPage::recentRequested, this, [this](const QString &path) {
        if (const QString error = openInBackground(path); !error.isEmpty())
            warnOf(error);
    });
    // File ▸ Open recent, filled when it opens.
    m_recentMenu = new QMenu(tr("Open &recent"), this);
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    m_ui->menuFile->insertMenu(m_ui->actionReload, m_recentMenu);
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    updateStartPage();
}

void MainWindow::fillRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent =
        m_settings == Settings::Remember ? RecentDatabases::load(QSettings()) : QStringList();
    if (recent.isEmpty())
        m_recentMenu->addAction(tr("No database opened yet"))->setEnabled(false);
    for (const QString &path : recent)
        m_recentMenu->addAction(path, this, [this, path] {
            if (const QString error = openInBackground(path); !error.isEmpty())
                warnOf(error);
        });
}

void MainWindow::updateStartPage()
{
    const bool empty = !m_document->hasRun() && !m_document->isLoading();
    if (empty)
        m_startPage->setRecent(m_settings == Settings::Remember ? RecentDatabases::load(QSettings())
                                                                : QStringList());
    m_startPage->setGeometry(m_lineage->rect());
    m_startPage->setVisible(empty);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_lineage && event->type() == QEvent::Resize)
        m_startPage->setGeometry(m_lineage->rect());
    return QMainWindow::eventFilter(watched, event);
}

RunController *MainWindow::startDemoRun(QString *error)
{
    return startRunFromArguments(
        {QStringLiteral("--task"), QStringLiteral("softmax"), QStringLiteral("--strategy"),
         QStringLiteral("beam"), QStringLiteral("--param"), QStringLiteral("beams=3"),
         QStringLiteral("--param"), QStringLiteral("children=3"), QStringLiteral("--budget"),
         QStringLiteral("30"), QStringLiteral("--seed"), QStringLiteral("1")},
        defaultDatabase(), error);
}

void MainWindow::setupHelpActions()
{
    auto *guide = new QAction(tr("&User guide"), this);
    guide->setObjectName(QStringLiteral("actionUserGuide"));
    guide->setShortcut(QKeySequence::HelpContents);
    auto *shortcuts = new QAction(tr("&Keyboard shortcuts"), this);
    shortcuts->setObjectName(QStringLiteral("actionShortcuts"));
    m_ui->menuHelp->insertAction(m_ui->actionDoctor, guide);
    m_ui->menuHelp->insertAction(m_ui->actionDoctor, shortcuts);
    m_ui->menuHelp->insertSeparator(m_ui->actionDoctor);
    connect(guide, &QAction::triggered, this, [this] { openHelp(false); });
    connect(shortcuts, &QAction::triggered, this, [this] { openHelp(true); });
}

void MainWindow::openHelp(bool shortcuts)
{
    auto *dialog = new HelpDialog(findChildren<QAction *>(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (shortcuts)
        dialog->showShortcuts();
    dialog->show();
}

} // namespace kiln
