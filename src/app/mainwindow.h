#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"
#include "models/computeaxis.h"
#include "models/rules/comparisonplan.h"

#include <QByteArray>
#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>
#include <memory>

class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;

namespace Ui {
class MainWindow;
}

namespace kiln {

class CandidateFile;
class CandidateSelection;
class CandidateHighlight;
class CandidatesPanel;
class CodePanel;
class DiagnosisModel;
class DiagnosisPanel;
class DiffPanel;
class FileEvaluationPlan;
class LineageView;
class ManualEditorPanel;
class ManualEditTab;
class BackgroundRuns;
class NoticeLabel;
class Notices;
class PlotsPanel;
class ProfilePanel;
class ReplayBar;
class ReportPanel;
class RunController;
class RunDocument;
class RunProgressWidget;
class StartPage;
class WorkshopDialog;
struct WorkshopExercise;
class SteadyLabel;
class TranscriptPanel;
class Workspace;
struct CommandLineOptions;
struct LaunchSettings;
struct CandidateRecord;
struct RunRecord;

// The workbench window: the lineage view in the centre and dockable panels (candidates, code,
// diff, verifier report, transcript, editor, plots) around it, all following one
// CandidateSelection. It starts, pauses, stops and resumes runs through its Workspace (whose
// run controllers push what their engines report into the document), follows runs that another
// process makes, and has hand-written candidates verified in the background. The panel layout
// and the launcher's last settings are remembered between sessions.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    enum class Settings
    {
        Remember, // restore and save geometry and panel layout
        Ignore    // a fixed default layout (screenshots, tests)
    };

    explicit MainWindow(Settings settings = Settings::Remember, QWidget *parent = nullptr);
    ~MainWindow() override;

    bool openDatabase(const QString &path, QString *error = nullptr);
    bool loadRun(qint64 runId, QString *error = nullptr);
    // --db, --run, --select and --view of cli.md; false with a one-line *error. With wait false
    // the run is read on a worker thread and the window stays responsive meanwhile.
    bool applyOptions(const CommandLineOptions &options, QString *error = nullptr,
                      bool wait = true);
    // Brings the panel of a --view name to the front.
    void showView(const QString &view);
    // Renders the window (offscreen included) into a PNG.
    bool saveScreenshot(const QString &path, QString *error = nullptr);

    // Starts the runs the launcher settings describe (one per seed) and shows the first.
    bool startRuns(const LaunchSettings &settings, QString *error = nullptr);
    // `kiln --new-run ARGS…`: the words of `kiln-cli run`, with `database` unless they name one.
    // With `show` false the run is not brought into view when it starts.
    RunController *startRunFromArguments(const QStringList &arguments, const QString &database,
                                         QString *error = nullptr, bool show = true);
    // The equal-budget comparison (`kiln --compare`): one run per strategy and seed, queued
    // through the workspace, overlaid live in the Plots panel (median and band per strategy)
    // with the table of each one's best at ¼, ½ and all of the budget.
    using Comparison = ComparisonPlan;
    QList<RunController *> startComparison(const Comparison &comparison, QString *error = nullptr);
    bool openCompareDialog();
    // View ▸ Back to the comparison: the last comparison's curves and table again, after another
    // run was looked at.
    void showComparisonAgain();
    // Presentation mode for workshops: large fonts, a high-contrast palette, the plots (the
    // compare view) full screen. One key (F11) toggles it.
    void setPresentation(bool on);
    bool isPresenting() const { return m_presenting; }
    bool resumeShownRun(QString *error = nullptr);
    // Run ▸ Judge again strictly: a lenient run's candidates judged by the strict verifier into
    // a new run, shown when it is done (kiln-cli rejudge).
    bool rejudgeShownRun(QString *error = nullptr);
    // The launcher, modal; true when it started something.
    bool openLauncher();
    // Hand-written candidates: an editable copy of the selected one, and files.
    ManualEditTab *editCopyOfCurrent();
    // Verifies a .cu/.cpp file against the shown run's task (as a manual root of that run), or,
    // with no search run shown, against `task` (asked for when empty) as an evaluation run.
    bool evaluateFile(const QString &path, const QString &task = QString(),
                      QString *error = nullptr);
    // Selects the best passing candidate (else the last one), as after loading a run.
    void selectBestCandidate() { selectAfterLoad(0); }
    // Stops every live run and waits for them (at most timeoutMs); true when all ended.
    bool stopRuns(int timeoutMs);

    RunDocument *document() const { return m_document; }
    CandidateSelection *selection() const { return m_selection; }
    LineageView *lineageView() const { return m_lineage; }
    PlotsPanel *plotsPanel() const { return m_plots; }
    ReplayBar *replayBar() const { return m_replay; }
    CandidatesPanel *candidatesPanel() const { return m_candidates; }
    CodePanel *codePanel() const { return m_code; }
    DiffPanel *diffPanel() const { return m_diff; }
    ReportPanel *reportPanel() const { return m_report; }
    TranscriptPanel *transcriptPanel() const { return m_transcript; }
    ProfilePanel *profilePanel() const { return m_profile; }
    ManualEditorPanel *editorPanel() const { return m_editor; }
    RunProgressWidget *progressWidget() const { return m_progress; }
    Workspace *workspace() const { return m_workspace; }
    // The controller growing the shown run in this window, if any.
    RunController *liveController() const;
    QDockWidget *dockFor(const QString &view) const;
    QComboBox *runCombo() const { return m_runCombo; }
    QString statusText() const;
    // What the window has said (progress, results, failures), newest last, and where it shows.
    Notices *notices() const { return m_notices; }
    NoticeLabel *noticeLabel() const { return m_noticeLabel; }
    StartPage *startPage() const { return m_startPage; }
    // The start page's "Run the demo search": scripts/demo.sh's search, in the default workspace.
    RunController *startDemoRun(QString *error = nullptr);
    // Help ▸ User guide (F1) and Help ▸ Keyboard shortcuts.
    void openHelp(bool shortcuts);
    // Run ▸ Workshop exercises: the dialog (kept, not modal), and one exercise's runs started.
    WorkshopDialog *openWorkshop();
    bool startWorkshopExercise(const WorkshopExercise &exercise, QString *error = nullptr);

signals:
    // A dropped or chosen file's verdict (ok false: it could not be judged, error says why).
    void fileEvaluated(bool ok, qint64 candidateId, const kiln::EvaluationResult &result,
                       const QString &error);
    // A workshop exercise's runs ended and its view is shown (runIds: its runs, in order).
    void exerciseDone(int number, const QList<qint64> &runIds);

protected:
    void closeEvent(QCloseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // A notice in the status area (kept in notices()); a failure also opens a window-modal
    // dialog, shown without a nested event loop, so runs go on behind it.
    void tell(const QString &text);
    void warnOf(const QString &text);
    void createPanels();
    void setupStartPage();
    void updateStartPage(); // shown while no run is on screen
    void fillRecentMenu();
    void setupHelpActions();
    void connectSelection();
    void setupTimers();
    void connectDocument();
    void restoreLayout();
    void setupDocks();
    void setupActions();
    void setActionIcons();
    void connectViewActions();
    QActionGroup *setupLayoutActions();
    void setupToolBar(QActionGroup *layouts);
    void applyDefaultLayout();
    void refreshRuns();
    void refreshRunsIfChanged();
    // What the picker's rebuild depends on: each run's id and status.
    static QList<QPair<qint64, int>> runListKey(const QList<RunRecord> &runs);
    void updateStatus();
    void updateTitle();
    void onCurrentChanged(qint64 candidateId);
    void showCurrent();
    void selectAfterLoad(qint64 candidateId); // that candidate, else the best, else the last
    void updateDiff();
    void openWithDialog();
    QString openInBackground(const QString &path);
    void findFromEdit();
    void setupRunActions();
    void setupComparisonActions();
    void setupWorkshopActions();
    bool startExerciseRun(const WorkshopExercise &exercise, int index,
                          const std::shared_ptr<QList<qint64>> &runIds, QString *error);
    void finishExercise(const WorkshopExercise &exercise, QList<qint64> runIds);
    void showExerciseView(const WorkshopExercise &exercise, const QList<qint64> &runIds);
    void updateRunActions();
    void updateLiveSource(); // push from this window's controller, or follow the log
    void watchController(RunController *controller);
    // Run ▸ Runs going: every run of the workspace that goes or waits, shown or not.
    void setupRunsGoingMenu();
    void fillRunsGoingMenu();
    BackgroundRuns backgroundRuns() const;
    void updateBackgroundLine(); // the status bar's line about runs going off screen
    void showWorkspaceRun(qint64 runId);
    int otherLiveRuns() const; // going or queued, besides the one shown
    bool ensureWorkspace(const QString &path, QString *error);
    // Run ▸ Optimisation memory: the dialog over the workspace's writer; false when it cannot open.
    bool openMemory();
    QString defaultDatabase() const;
    QString openDatabasePath() const;  // empty when no database is open
    const RunRecord *shownRun() const; // nullptr when no run is shown
    void showRunWhenStarted(RunController *controller);
    // One run of launcher settings (seed seed + seedOffset), checked and started or queued.
    RunController *startLaunch(const LaunchSettings &settings, int seedOffset, QString *error);
    void submitTab(ManualEditTab *tab);
    // evaluateFile's two ways: a manual root of the shown search run, or an evaluation run.
    bool evaluateFileInRun(const CandidateFile &file, FileEvaluationPlan &plan, QString *error);
    bool evaluateFileAlone(const CandidateFile &file, FileEvaluationPlan &plan, QString *error);
    bool askTask(FileEvaluationPlan &plan); // false: the user cancelled
    bool showsWorkspaceRun(qint64 runId) const;
    void onRejudged(qint64 runId, qint64 newRunId, int changed, const QString &error);
    bool profileCandidate(qint64 candidateId, QString *error);
    void onProfiled(qint64 candidateId, const QString &error);
    void showProfiles(const CandidateRecord &record);
    void onManualStored(int ticket, const CandidateRecord &candidate);
    void onManualFinished(int ticket, bool ok, const CandidateRecord &candidate,
                          const EvaluationResult &result, const QString &error);

    std::unique_ptr<Ui::MainWindow> m_ui;
    std::shared_ptr<QList<qint64>> m_compareRuns; // the shown comparison's runs, by slot
    ComputeAxis m_compareAxis = ComputeAxis::Samples;
    double m_compareBudget = 0.0;
    QString m_compareDatabase; // where the comparison's runs are
    QAction *m_backToComparison = nullptr;
    bool m_presenting = false;
    QByteArray m_stateBeforePresenting;
    Settings m_settings;
    RunDocument *m_document;
    CandidateSelection *m_selection;
    LineageView *m_lineage;
    CandidatesPanel *m_candidates;
    CodePanel *m_code;
    DiffPanel *m_diff;
    ReportPanel *m_report;
    TranscriptPanel *m_transcript;
    ProfilePanel *m_profile;
    ManualEditorPanel *m_editor;
    Workspace *m_workspace;
    RunProgressWidget *m_progress = nullptr;
    QPointer<RunController> m_live;
    QList<QMetaObject::Connection> m_liveConnections;
    QHash<int, QString> m_fileTickets; // dropped files being judged, by ticket
    QDockWidget *m_editorDock = nullptr;
    QDockWidget *m_candidatesDock = nullptr;
    QDockWidget *m_codeDock = nullptr;
    QDockWidget *m_diffDock = nullptr;
    QDockWidget *m_reportDock = nullptr;
    QDockWidget *m_transcriptDock = nullptr;
    QDockWidget *m_profileDock = nullptr;
    QDockWidget *m_plotsDock = nullptr;
    PlotsPanel *m_plots = nullptr;
    CandidateHighlight *m_highlight = nullptr;
    DiagnosisModel *m_diagnosisModel = nullptr;
    DiagnosisPanel *m_diagnosis = nullptr;
    QDockWidget *m_diagnosisDock = nullptr;
    ReplayBar *m_replay = nullptr;
    QComboBox *m_runCombo = nullptr;
    QMenu *m_runsGoingMenu = nullptr;
    QMenu *m_recentMenu = nullptr;
    QAction *m_rejudgeAction = nullptr;
    StartPage *m_startPage = nullptr;
    QPointer<WorkshopDialog> m_workshop;
    QLineEdit *m_findEdit = nullptr;
    SteadyLabel *m_statusLabel = nullptr;
    Notices *m_notices = nullptr;
    NoticeLabel *m_noticeLabel = nullptr;
    QTimer m_statusTimer; // coalesces a live run's changes into one status line
    // Runs another process adds or ends on the open database reach the run picker this way.
    QTimer m_runListTimer;
    QList<QPair<qint64, int>> m_runListSeen; // (id, status) of the runs the picker shows
    QByteArray m_defaultState;
    bool m_resettingCompare = false;
    QString m_pendingView;      // dock sizes only apply once the window is shown
    qint64 m_pendingSelect = 0; // to select when an asynchronous load finishes
};

} // namespace kiln
