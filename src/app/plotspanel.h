#pragma once

#include "plotrenderer.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QListWidget;
class QMouseEvent;
class QPushButton;
class QTableWidget;

namespace kiln {

class CandidateHighlight;
class CandidateSelection;
class RunDocument;

// The Plots panel: one plot at a time (speedup against compute, coverage, reasoning, timing,
// roofline) of the shown run and of the runs ticked beside it, redrawn as a live run grows; and
// fast_p per KernelBench level, of the whole database.
// Hovering a point names its candidate; a click selects it everywhere. Exports PNG, PDF, SVG.
class PlotsPanel : public QWidget
{
    Q_OBJECT

public:
    PlotsPanel(RunDocument *document, CandidateSelection *selection, QWidget *parent = nullptr);
    // The speedup plot marks highlighted candidates of the shown run on its curve.
    void setHighlight(CandidateHighlight *highlight);

    PlotOptions options() const { return m_options; }
    void setOptions(const PlotOptions &options);
    // Draws exactly these runs (kiln --runs); empty: the shown run and the ticked ones.
    void setRunIds(const QList<qint64> &runIds);
    QList<qint64> plottedRunIds() const;
    // The compare view: these runs (strategies × seeds at one budget), the x-axis that measures
    // the budget, and the table of each strategy's best at ¼, ½ and all of it under the plot.
    void setComparison(const QList<qint64> &runIds, ComputeAxis axis, double budget);
    bool isComparing() const { return m_compareBudget > 0; }
    // Redraws now. A growing run is redrawn 300 ms after a change, or at most every four times
    // the last redraw took for a large one; requestRefresh() asks for that.
    void refresh();
    void requestRefresh();
    QTableWidget *comparisonTable() const { return m_compareTable; }
    // Beside it: each compared strategy's mean diagnosis rating per analyzer.
    QTableWidget *diagnosisTable() const { return m_diagnosisTable; }
    // Workshop mode: thick lines, large type, a high-contrast palette.
    void setPresentation(bool on);
    // PNG, PDF, SVG or the curves as CSV by the file's suffix; width and height in pixels (0:
    // the widget's size).
    bool exportTo(const QString &path, int width, int height, QString *error);
    QCustomPlot *plot() const { return m_plot; }
    const PlotRenderer &renderer() const { return m_renderer; }
    // The tooltip text of a drawn candidate ("#12 pass 1.80× ± 0.03 ✓ refine (run 3)"), or empty.
    QString describe(qint64 candidateId) const;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void buildControls();
    bool needsFacts() const;
    void controlsChanged();
    void refillRunList();
    void onMouseMove(QMouseEvent *event);
    void onMousePress(QMouseEvent *event);
    void onExportClicked();
    bool exportSvg(const QString &path, int width, int height);
    bool exportCsv(const QString &path);
    void fillComparisonTable();
    void fillDiagnosisTable();
    FastPSeries kernelBenchSeries(); // the fastp plot's data, read from the database

    RunDocument *m_document;
    CandidateSelection *m_selection;
    CandidateHighlight *m_highlight = nullptr;
    QCustomPlot *m_plot;
    PlotRenderer m_renderer;
    PlotOptions m_options;
    QList<qint64> m_fixedRuns;
    QList<PlotRun> m_runs;
    bool m_drawing = false;  // the renderer sets the ranges: not the person's view
    bool m_userView = false; // the person zoomed or dragged: redraws keep that view
    QTimer m_refreshTimer;
    QComboBox *m_kind = nullptr;
    QComboBox *m_axis = nullptr;
    QCheckBox *m_logX = nullptr;
    QComboBox *m_band = nullptr;
    QCheckBox *m_leaky = nullptr;
    QPushButton *m_export = nullptr;
    QListWidget *m_runList = nullptr;
    QTableWidget *m_compareTable = nullptr;
    QTableWidget *m_diagnosisTable = nullptr;
    QList<qint64> m_diagnosedRuns; // whose diagnoses the table shows (or is computing)
    QElapsedTimer m_diagnosedAt;
    QTimer m_diagnosisAgain;
    bool m_diagnosing = false;
    static constexpr int kDiagnosisRefreshMs = 5000;
    double m_compareBudget = 0.0;
    ComputeAxis m_compareAxis = ComputeAxis::Evaluations;
    qint64 m_listedRun = 0; // the run the run list was made for
    bool m_updatingControls = false;
    bool m_stale = false;
};

} // namespace kiln
