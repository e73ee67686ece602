#pragma once

#include <QByteArray>
#include <QMainWindow>
#include <QTimer>
#include <memory>

class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;

namespace Ui {
class MainWindow;
}

namespace kiln {

class CandidateSelection;
class CandidatesPanel;
class CodePanel;
class DiffPanel;
class LineageView;
class ReportPanel;
class RunDocument;
class TranscriptPanel;
struct CommandLineOptions;

// The workbench window: the lineage view in the centre and dockable panels (candidates, code,
// diff, verifier report, transcript, plots) around it, all following one CandidateSelection.
// The panel layout is remembered between sessions.
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

    RunDocument *document() const { return m_document; }
    CandidateSelection *selection() const { return m_selection; }
    LineageView *lineageView() const { return m_lineage; }
    CandidatesPanel *candidatesPanel() const { return m_candidates; }
    CodePanel *codePanel() const { return m_code; }
    DiffPanel *diffPanel() const { return m_diff; }
    ReportPanel *reportPanel() const { return m_report; }
    TranscriptPanel *transcriptPanel() const { return m_transcript; }
    QDockWidget *dockFor(const QString &view) const;
    QComboBox *runCombo() const { return m_runCombo; }
    QString statusText() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void setupDocks();
    void setupActions();
    void applyDefaultLayout();
    void refreshRuns();
    void updateStatus();
    void updateTitle();
    void onCurrentChanged(qint64 candidateId);
    void showCurrent();
    void selectAfterLoad(qint64 candidateId); // that candidate, else the best, else the last
    void updateDiff();
    void poll();
    void openWithDialog();
    void findFromEdit();

    std::unique_ptr<Ui::MainWindow> m_ui;
    Settings m_settings;
    RunDocument *m_document;
    CandidateSelection *m_selection;
    LineageView *m_lineage;
    CandidatesPanel *m_candidates;
    CodePanel *m_code;
    DiffPanel *m_diff;
    ReportPanel *m_report;
    TranscriptPanel *m_transcript;
    QDockWidget *m_candidatesDock = nullptr;
    QDockWidget *m_codeDock = nullptr;
    QDockWidget *m_diffDock = nullptr;
    QDockWidget *m_reportDock = nullptr;
    QDockWidget *m_transcriptDock = nullptr;
    QDockWidget *m_plotsDock = nullptr;
    QComboBox *m_runCombo = nullptr;
    QLineEdit *m_findEdit = nullptr;
    QLabel *m_statusLabel = nullptr;
    QTimer m_pollTimer;
    QByteArray m_defaultState;
    bool m_resettingCompare = false;
    QString m_pendingView;      // dock sizes only apply once the window is shown
    qint64 m_pendingSelect = 0; // to select when an asynchronous load finishes
};

} // namespace kiln
