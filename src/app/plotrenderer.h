#pragma once

#include "models/computeaxis.h"
#include "models/plotkind.h"
#include "models/plotrun.h"
#include "models/plotseries.h"

#include "core/evaluationresult.h"

#include <QList>
#include <QPointF>
#include <QSet>
#include <optional>

class QCPAxis;
class QCPGraph;
class QCustomPlot;

namespace kiln {

// What the Plots panel's controls chose.
struct PlotOptions
{
    PlotKind kind = PlotKind::Speedup;
    ComputeAxis axis = ComputeAxis::Samples;
    bool logX = false;
    SeedBand::Kind band = SeedBand::Kind::MinMax;
    bool leaky = false;
};

// Draws one plot of PlotData's series on a QCustomPlot, and remembers which candidate each
// drawn point stands for (hover and click).
class PlotRenderer
{
public:
    explicit PlotRenderer(QCustomPlot *plot);

    // `runs` are the runs to draw (one curve each; runs that differ only in their seed become
    // a median with a band); `selected` the current candidate, whose evaluation the timing
    // plot draws and the roofline highlights.
    void draw(const QList<PlotRun> &runs, const PlotOptions &options, qint64 selected,
              const std::optional<EvaluationResult> &selectedEvaluation);
    // What the fastp plot draws (the whole database's KernelBench problems, not `runs`): the
    // panel sets it before drawing that plot.
    void setFastP(const FastPSeries &series) { m_fastP = series; }
    // Candidates of run `runId` to mark on the speedup plot (a diagnosis finding's evidence).
    void setHighlight(qint64 runId, const QSet<qint64> &ids, const QString &label)
    {
        m_highlightRun = runId;
        m_highlightIds = ids;
        m_highlightLabel = label;
    }
    // The candidate drawn nearest to a pixel position within `radius` pixels; 0 for none.
    qint64 candidateAt(const QPointF &position, double radius = 8.0) const;
    // Every named curve's value at the pixel's x (a step holds its last value), one per line
    // under the x value; empty outside the axes or when no curve has a value there.
    QString readoutAt(const QPointF &position) const;
    // The named curves' points as CSV (series, x, y), with the axis titles as the header.
    QString csv() const;
    // Why the plot is empty, when it is ("no candidate has passed yet"); else empty.
    QString emptyReason() const { return m_emptyReason; }

    // High contrast for a projector: colour-blind-safe strong colours, thick lines, large type.
    void setPresentation(bool on);
    bool presenting() const { return m_presenting; }
    QColor seriesColor(int index) const;

private:
    void reset(const QString &title);
    void drawHighlight(const QList<PlotRun> &runs, const PlotOptions &options);
    void drawSpeedup(const QList<PlotRun> &runs, const PlotOptions &options);
    void drawSeedGroup(const QList<PlotRun> &runs, const QList<int> &group,
                       const PlotOptions &options, int colorIndex);
    void drawBand(const SeedBand &band, const QString &name, const PlotOptions &options,
                  const QColor &color);
    // A filled channel between two step lines, left out of the legend.
    void drawChannel(const QVector<double> &x, const QVector<double> &low,
                     const QVector<double> &high, const QColor &fill);
    void drawCurve(const StepCurve &curve, const PlotOptions &options, const QColor &color,
                   bool dashed);
    void drawCoverage(const QList<PlotRun> &runs);
    void drawCoveragePerTask(const PlotRun &run);
    void drawReasoning(const PlotRun &run);
    void drawSpeedupPoints(const ReasoningSeries &series); // with their intervals as error bars
    void drawTiming(qint64 selected, const std::optional<EvaluationResult> &evaluation);
    void drawRoofline(const QList<PlotRun> &runs, qint64 selected);
    void drawRoofs(const RooflineSeries &series, double from, double to);
    void drawFastP();
    QCPGraph *addGraph(const QString &name, const QColor &color, QCPAxis *valueAxis = nullptr);
    void remember(const QList<CandidatePoint> &points, QCPAxis *valueAxis);
    void setLogX(bool log);
    void fitLegend();
    static QString fullName(const QCPGraph *graph); // before the legend elided it
    void finish();

    struct Hover
    {
        double x = 0.0;
        double y = 0.0;
        qint64 candidateId = 0;
        QCPAxis *valueAxis = nullptr;
    };
    QCustomPlot *m_plot;
    QList<Hover> m_hover;
    QString m_emptyReason;
    FastPSeries m_fastP;
    qint64 m_highlightRun = 0;
    QSet<qint64> m_highlightIds;
    QString m_highlightLabel;
    bool m_padX = true;
    bool m_fixedRanges = false; // the plot set its axis ranges: finish() keeps them
    bool m_presenting = false;
};

} // namespace kiln
