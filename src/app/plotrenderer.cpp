#include "plotrenderer.h"

#include "models/plotdata.h"
#include "models/verdictstyle.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QMap>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln {

namespace {

// Where a step curve starts on the x-axis: its vertices are in increasing x, and a log axis
// cannot show those at 0 (nothing spent yet).
int firstDrawn(const QVector<double> &x, bool logX)
{
    if (!logX)
        return 0;
    return int(std::upper_bound(x.cbegin(), x.cend(), 0.0) - x.cbegin());
}

QCPItemText *note(QCustomPlot *plot, const QString &text, double rx, double ry, Qt::Alignment align)
{
    auto *item = new QCPItemText(plot);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(rx, ry);
    item->setPositionAlignment(align);
    item->setTextAlignment(Qt::AlignLeft);
    item->setText(text);
    item->setPadding(QMargins(4, 2, 4, 2));
    item->setBrush(QColor(255, 255, 255, 200));
    return item;
}

// "run #3" or "runs #3, #5": which runs a plot of one run's series shows.
QString runNames(const QList<PlotRun> &runs)
{
    QStringList ids;
    for (const PlotRun &run : runs)
        ids << QStringLiteral("#%1").arg(run.run.id);
    if (ids.isEmpty())
        return QStringLiteral("no run");
    return (ids.size() == 1 ? QStringLiteral("run ") : QStringLiteral("runs ")) +
           ids.join(QStringLiteral(", "));
}

void verticalLine(QCustomPlot *plot, double x, const QColor &color)
{
    auto *line = new QCPItemStraightLine(plot);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    line->setPen(QPen(color, 1.5, Qt::DashLine));
}

} // namespace

PlotRenderer::PlotRenderer(QCustomPlot *plot) : m_plot(plot)
{
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, QString()));
    m_plot->legend->setFont(QFont(m_plot->font().family(), m_plot->font().pointSize() - 1));
    // The legend has a row of its own under the axes: inside them it sat on curves, on the
    // roofline's only point and on the histogram's outlier bars, whatever corner it took.
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(2);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setMargins(QMargins(4, 0, 4, 2));
}

void PlotRenderer::setPresentation(bool on)
{
    m_presenting = on;
    const double scale = on ? 1.8 : 1.0;
    QFont base = m_plot->font();
    base.setPointSizeF(QFont().pointSizeF() * scale);
    QFont bold = base;
    bold.setBold(on); // leaving presentation mode leaves no bold behind
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis, m_plot->yAxis2}) {
        axis->setLabelFont(bold);
        axis->setTickLabelFont(base);
        axis->setBasePen(QPen(Qt::black, on ? 2.5 : 1));
        axis->setTickPen(QPen(Qt::black, on ? 2.5 : 1));
    }
    m_plot->legend->setFont(base);
    if (auto *title = qobject_cast<QCPTextElement *>(m_plot->plotLayout()->element(0, 0)))
        title->setFont(bold);
}

QColor PlotRenderer::seriesColor(int index) const
{
    if (m_presenting) { // Okabe–Ito, strongest first
        static const QColor strong[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00),
                                        QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                                        QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                        QColor(0x00, 0x00, 0x00), QColor(0xf0, 0xe4, 0x42)};
        return strong[index % 8];
    }
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x2c, 0xa0, 0x2c), QColor(0xff, 0x7f, 0x0e),
                                    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                    QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf)};
    return colors[index % 8];
}

void PlotRenderer::draw(const QList<PlotRun> &runs, const PlotOptions &options, qint64 selected,
                        const std::optional<EvaluationResult> &selectedEvaluation)
{
    m_hover.clear();
    m_emptyReason.clear();
    const PlotRun none;
    const PlotRun &first = runs.isEmpty() ? none : runs.first();
    switch (options.kind) {
    case PlotKind::Speedup:
        drawSpeedup(runs, options);
        break;
    case PlotKind::Coverage:
        drawCoverage(runs);
        break;
    case PlotKind::Reasoning:
        drawReasoning(first);
        break;
    case PlotKind::Timing:
        drawTiming(selected, selectedEvaluation);
        break;
    case PlotKind::Roofline:
        drawRoofline(runs, selected);
        break;
    case PlotKind::FastP:
        drawFastP();
        break;
    }
    finish();
}

qint64 PlotRenderer::candidateAt(const QPointF &position, double radius) const
{
    qint64 found = 0;
    double nearest = radius * radius;
    for (const Hover &h : m_hover) {
        const double dx = m_plot->xAxis->coordToPixel(h.x) - position.x();
        const double dy = h.valueAxis->coordToPixel(h.y) - position.y();
        if (dx * dx + dy * dy <= nearest) {
            nearest = dx * dx + dy * dy;
            found = h.candidateId;
        }
    }
    return found;
}

QString PlotRenderer::readoutAt(const QPointF &position) const
{
    if (!m_plot->axisRect()->rect().contains(position.toPoint()))
        return {};
    const double x = m_plot->xAxis->pixelToCoord(position.x());
    QStringList lines{QStringLiteral("%1 = %2").arg(m_plot->xAxis->label()).arg(x, 0, 'g', 4)};
    for (int g = 0; g < m_plot->graphCount(); ++g) {
        QCPGraph *graph = m_plot->graph(g);
        if (graph->name().isEmpty() || graph->data()->isEmpty())
            continue;
        // Curves here are steps or points: the last one at or before x is the value there.
        auto it = graph->data()->findEnd(x, false);
        if (it == graph->data()->constBegin())
            continue;
        --it;
        lines << QStringLiteral("%1: %2").arg(fullName(graph)).arg(it->value, 0, 'g', 4);
    }
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

QString PlotRenderer::csv() const
{
    const auto quoted = [](QString text) {
        return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
               QLatin1Char('"');
    };
    QString out = QStringLiteral("series,%1,%2\n")
                      .arg(quoted(m_plot->xAxis->label()), quoted(m_plot->yAxis->label()));
    for (int g = 0; g < m_plot->graphCount(); ++g) {
        const QCPGraph *graph = m_plot->graph(g);
        if (graph->name().isEmpty())
            continue; // bands' edges and markers repeat a named curve
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            out += QStringLiteral("%1,%2,%3\n")
                       .arg(quoted(fullName(graph)))
                       .arg(it->key, 0, 'g', 10)
                       .arg(it->value, 0, 'g', 10);
    }
    return out;
}

void PlotRenderer::reset(const QString &title)
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (auto *text = qobject_cast<QCPTextElement *>(m_plot->plotLayout()->element(0, 0)))
        text->setText(title);
    m_plot->yAxis2->setVisible(false);
    m_plot->yAxis->setScaleType(QCPAxis::stLinear);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    setLogX(false);
    m_plot->legend->setVisible(true);
    m_padX = true;
    m_fixedRanges = false;
}

void PlotRenderer::setLogX(bool log)
{
    m_plot->xAxis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_plot->xAxis->setTicker(log ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                 : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

QCPGraph *PlotRenderer::addGraph(const QString &name, const QColor &color, QCPAxis *valueAxis)
{
    QCPGraph *graph = m_plot->addGraph(m_plot->xAxis, valueAxis ? valueAxis : m_plot->yAxis);
    graph->setName(name);
    graph->setPen(QPen(color, m_presenting ? 4.5 : 2));
    return graph;
}

void PlotRenderer::remember(const QList<CandidatePoint> &points, QCPAxis *valueAxis)
{
    for (const CandidatePoint &p : points)
        m_hover.append({p.x, p.y, p.candidateId, valueAxis});
}

// Two legend columns while they fit the plot's width, else one; an entry wider than the plot
// even alone is elided in the legend (the readout and the CSV keep its full name).
void PlotRenderer::fitLegend()
{
    const QFontMetrics metrics(m_plot->legend->font());
    const int room = std::max(120, m_plot->width() - 80); // the icon and the margins
    for (int g = 0; g < m_plot->graphCount(); ++g) {
        QCPGraph *graph = m_plot->graph(g);
        if (graph->name().isEmpty())
            continue;
        graph->setProperty("fullName", graph->name());
        graph->setName(metrics.elidedText(graph->name(), Qt::ElideMiddle, room));
    }
    m_plot->legend->setWrap(2);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    if (m_plot->legend->minimumOuterSizeHint().width() > m_plot->width()) {
        m_plot->legend->setWrap(1);
        m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

QString PlotRenderer::fullName(const QCPGraph *graph)
{
    const QString full = graph->property("fullName").toString();
    return full.isEmpty() ? graph->name() : full;
}

void PlotRenderer::finish()
{
    fitLegend();
    if (m_fixedRanges) { // the plot set both ranges itself
        if (!m_emptyReason.isEmpty())
            note(m_plot, m_emptyReason, 0.5, 0.5, Qt::AlignCenter);
        m_plot->replot();
        return;
    }
    const QCPRange second = m_plot->yAxis2->range(); // set by the plot, not by the data
    m_plot->rescaleAxes();
    if (m_plot->yAxis2->visible())
        m_plot->yAxis2->setRange(second);
    // Points on the frame are hard to see and to hover: leave a margin (none left of a
    // compute axis, which starts at 0).
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        const QCPRange r = axis->range();
        if (axis->scaleType() == QCPAxis::stLogarithmic && r.lower > 0)
            axis->setRange(r.lower / 1.5, r.upper * 1.5);
        else if (axis == m_plot->yAxis)
            axis->setRange(std::min(0.0, r.lower), r.upper > 0 ? r.upper * 1.08 : 1.0);
        else if (m_padX)
            axis->setRange(r.lower - 0.04 * r.size(), r.upper + 0.04 * r.size());
    }
    if (m_plot->xAxis->scaleType() == QCPAxis::stLinear && m_plot->xAxis->range().size() <= 0)
        m_plot->xAxis->setRange(0, 1);
    if (!m_emptyReason.isEmpty())
        note(m_plot, m_emptyReason, 0.5, 0.5, Qt::AlignCenter);
    m_plot->replot();
}

void PlotRenderer::drawSpeedup(const QList<PlotRun> &runs, const PlotOptions &options)
{
    reset(QStringLiteral("Best verified speedup against compute spent"));
    m_padX = false;
    m_plot->xAxis->setLabel(computeAxisTitle(options.axis));
    m_plot->yAxis->setLabel(QStringLiteral("best verified speedup (×)"));
    setLogX(options.logX);
    const QList<QList<int>> groups = PlotData::seedGroups(runs);
    for (int g = 0; g < groups.size(); ++g)
        drawSeedGroup(runs, groups[g], options, g);
    drawHighlight(runs, options);
    bool anyPass = false;
    for (const PlotRun &run : runs)
        for (const CandidateSummary &c : run.candidates)
            anyPass = anyPass || (c.evaluated && c.verdict == Verdict::Pass && c.speedup);
    if (runs.isEmpty())
        m_emptyReason = QStringLiteral("No run to plot: open a workspace or start a run.");
    else if (!anyPass)
        m_emptyReason = QStringLiteral("No candidate has passed yet: every curve is at 0.");
}

// The highlighted candidates, as diamonds on their run's curve.
void PlotRenderer::drawHighlight(const QList<PlotRun> &runs, const PlotOptions &options)
{
    for (const PlotRun &run : runs) {
        if (run.run.id != m_highlightRun || m_highlightIds.isEmpty())
            continue;
        const QList<CandidatePoint> points =
            PlotData::pointsOnCurve(run, options.axis, m_highlightIds);
        QCPGraph *marks =
            addGraph(QStringLiteral("evidence: %1 (%2)").arg(m_highlightLabel).arg(points.size()),
                     VerdictStyle::highlightColor());
        marks->setLineStyle(QCPGraph::lsNone);
        marks->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDiamond, VerdictStyle::highlightColor(),
                            VerdictStyle::highlightColor(),
                            m_presenting ? 16 : 9)); // filled: the curve's own markers are hollow
        for (const CandidatePoint &p : points)
            if (!options.logX || p.x > 0)
                marks->addData(p.x, p.y);
        remember(points, m_plot->yAxis);
    }
}

void PlotRenderer::drawSeedGroup(const QList<PlotRun> &runs, const QList<int> &group,
                                 const PlotOptions &options, int colorIndex)
{
    const QColor color = seriesColor(colorIndex);
    QList<StepCurve> curves;
    for (int index : group)
        curves.append(PlotData::bestSpeedup(runs[index], options.axis));
    if (curves.size() == 1) {
        drawCurve(curves.first(), options, color, false);
    } else {
        const PlotRun &run = runs[group.first()];
        const QString name =
            QStringLiteral("%1 on %2: median of %3 seeds, band %4")
                .arg(run.run.strategy, run.run.tasks.join(QLatin1Char(',')))
                .arg(curves.size())
                .arg(options.band == SeedBand::Kind::MinMax ? QStringLiteral("min–max")
                                                            : QStringLiteral("interquartile"));
        drawBand(PlotData::band(curves, options.band), name, options, color);
        for (const StepCurve &c : curves) // each seed's new bests stay clickable
            remember(c.records, m_plot->yAxis);
    }
    if (options.leaky)
        for (int index : group)
            drawCurve(PlotData::bestSpeedup(runs[index], options.axis, true), options, color, true);
}

void PlotRenderer::drawChannel(const QVector<double> &x, const QVector<double> &low,
                               const QVector<double> &high, const QColor &fill)
{
    QCPGraph *lower = addGraph(QString(), fill);
    lower->setData(x, low, true);
    lower->setLineStyle(QCPGraph::lsStepLeft);
    lower->removeFromLegend();
    QCPGraph *upper = addGraph(QString(), fill);
    upper->removeFromLegend();
    upper->setData(x, high, true);
    upper->setLineStyle(QCPGraph::lsStepLeft);
    upper->setBrush(fill);
    upper->setChannelFillGraph(lower);
}

void PlotRenderer::drawBand(const SeedBand &band, const QString &name, const PlotOptions &options,
                            const QColor &color)
{
    const int from = firstDrawn(band.x, options.logX);
    const QVector<double> x = band.x.mid(from);
    QColor fill = color;
    fill.setAlpha(45);
    drawChannel(x, band.low.mid(from), band.high.mid(from), fill);
    QCPGraph *median = addGraph(name, color);
    median->setData(x, band.median.mid(from), true);
    median->setLineStyle(QCPGraph::lsStepLeft);
}

void PlotRenderer::drawCurve(const StepCurve &curve, const PlotOptions &options,
                             const QColor &color, bool dashed)
{
    const int from = firstDrawn(curve.x, options.logX);
    // The 95 % interval of the best, lighter than a band over seeds: how sure each step is.
    if (!dashed && curve.banded && curve.low.size() == curve.x.size() &&
        curve.high.size() == curve.x.size()) {
        QColor fill = color;
        fill.setAlpha(30);
        drawChannel(curve.x.mid(from), curve.low.mid(from), curve.high.mid(from), fill);
    }
    QCPGraph *line = addGraph(dashed ? curve.label + QStringLiteral(" — if flagged ones passed")
                                     : PlotData::curveName(curve),
                              color);
    line->setData(curve.x.mid(from), curve.y.mid(from), true);
    line->setLineStyle(QCPGraph::lsStepLeft);
    if (dashed) {
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        return;
    }
    QCPGraph *markers = addGraph(QString(), color);
    markers->removeFromLegend();
    markers->setLineStyle(QCPGraph::lsNone);
    markers->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, color, Qt::white, m_presenting ? 14 : 7));
    for (const CandidatePoint &p : curve.records)
        if (!options.logX || p.x > 0)
            markers->addData(p.x, p.y);
    remember(curve.records, m_plot->yAxis);
}

// Every plotted run's curves, so the runs ticked in the panel compare; the title names them.
void PlotRenderer::drawCoverage(const QList<PlotRun> &runs)
{
    reset(QStringLiteral("Coverage: pass@k and fast_p@k (unbiased estimator), %1")
              .arg(runNames(runs)));
    m_plot->xAxis->setLabel(QStringLiteral("k (samples drawn from the n taken)"));
    m_plot->yAxis->setLabel(QStringLiteral("probability"));
    auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples); // whole numbers of samples
    m_plot->xAxis->setTicker(ticker);
    if (runs.size() == 1 && PlotData::sampledTasks(runs.first()).size() > 1) {
        drawCoveragePerTask(runs.first());
        return;
    }
    int drawn = 0;
    for (int r = 0; r < runs.size(); ++r) {
        const CoverageSeries s = PlotData::coverage(runs[r]);
        if (s.n == 0)
            continue;
        ++drawn;
        const QString run =
            runs.size() > 1 ? QStringLiteral("run %1: ").arg(runs[r].run.id) : QString();
        const QColor color = seriesColor(runs.size() > 1 ? r : 0);
        QCPGraph *pass = addGraph(QStringLiteral("%1pass@k (n = %2)").arg(run).arg(s.n), color);
        pass->setData(s.k, s.passAtK, true);
        pass->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
        for (int t = 1; t < s.thresholds.size(); ++t) { // fast_0 is pass@k
            QCPGraph *fast = addGraph(QStringLiteral("%1fast_%2@k").arg(run).arg(s.thresholds[t]),
                                      runs.size() > 1 ? color : seriesColor(t));
            fast->setData(s.k, s.fastPAtK[t], true);
            if (runs.size() > 1)
                fast->setPen(QPen(color, m_presenting ? 3 : 1.5,
                                  Qt::PenStyle(Qt::DashLine + std::min(t, 3) - 1)));
        }
    }
    if (drawn == 0)
        m_emptyReason = QStringLiteral("No evaluated sample (operation \"sample\") in this run.");
    m_plot->yAxis->setRange(-0.03, 1.05); // a task that never passes stays visible at 0
}

// A suite's run: each task's pass@k and their mean, which pooling the samples would hide (a
// draw of k samples then mixes tasks, and a task no sample solves plateaus unseen).
void PlotRenderer::drawCoveragePerTask(const PlotRun &run)
{
    if (auto *title = qobject_cast<QCPTextElement *>(m_plot->plotLayout()->element(0, 0)))
        title->setText(QStringLiteral("Coverage per task: pass@k of each task's samples, run #%1")
                           .arg(run.run.id));
    QList<CoverageSeries> tasks;
    const QStringList names = PlotData::sampledTasks(run);
    for (int t = 0; t < names.size(); ++t) {
        tasks.append(PlotData::coverage(run, names[t]));
        if (tasks.last().n == 0)
            continue;
        QCPGraph *task = addGraph(QStringLiteral("%1 (n = %2)").arg(names[t]).arg(tasks.last().n),
                                  seriesColor(t + 1));
        task->setPen(QPen(seriesColor(t + 1), m_presenting ? 3 : 1.5));
        task->setData(tasks.last().k, tasks.last().passAtK, true);
    }
    const CoverageSeries mean = PlotData::meanOverTasks(tasks);
    QCPGraph *line =
        addGraph(QStringLiteral("mean over the %1 tasks").arg(names.size()), seriesColor(0));
    line->setPen(QPen(seriesColor(0), m_presenting ? 6 : 3.5));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    line->setData(mean.k, mean.passAtK, true);
    if (mean.k.isEmpty())
        m_emptyReason = QStringLiteral("No evaluated sample (operation \"sample\") in this run.");
    m_plot->yAxis->setRange(-0.03, 1.05); // a task that never passes stays visible at 0
}

void PlotRenderer::drawReasoning(const PlotRun &run)
{
    reset(QStringLiteral("Speedup and correctness against reasoning length"));
    const ReasoningSeries s = PlotData::reasoning(run);
    m_plot->xAxis->setLabel(s.xTitle);
    m_plot->yAxis->setLabel(QStringLiteral("speedup of passing candidates (×)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(QStringLiteral("correct (1) or not (0)"));
    m_plot->yAxis2->setRange(-0.1, 1.1);
    if (s.correctness.isEmpty()) {
        m_emptyReason = QStringLiteral("No evaluated candidate yet.");
        return;
    }
    drawSpeedupPoints(s);
    remember(s.speedups, m_plot->yAxis);
    QCPGraph *correct = addGraph(QStringLiteral("correctness"), seriesColor(1), m_plot->yAxis2);
    correct->setLineStyle(QCPGraph::lsNone);
    correct->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, 6));
    for (const CandidatePoint &p : s.correctness)
        correct->addData(p.x, p.y);
    remember(s.correctness, m_plot->yAxis2);
    if (s.speedups.size() >= 2) {
        double lo = s.speedups.first().x, hi = lo;
        for (const CandidatePoint &p : s.speedups) {
            lo = std::min(lo, p.x);
            hi = std::max(hi, p.x);
        }
        QCPGraph *fit = addGraph(QStringLiteral("least-squares fit"), seriesColor(0).darker());
        fit->setPen(QPen(seriesColor(0).darker(), 1.5, Qt::DashLine));
        fit->setData({lo, hi}, {s.intercept + s.slope * lo, s.intercept + s.slope * hi});
    }
    // A correlation needs three points and some spread to mean anything.
    const auto r = [](double value, qsizetype n) {
        return n >= 3 && std::isfinite(value) ? QString::number(value, 'f', 2)
                                              : QStringLiteral("n/a");
    };
    note(m_plot,
         QStringLiteral("Pearson r: speedup %1 (n = %2), correctness %3 (n = %4)")
             .arg(r(s.speedupR, s.speedups.size()))
             .arg(s.speedups.size())
             .arg(r(s.correctR, s.correctness.size()))
             .arg(s.correctness.size()),
         0.02, 0.03, Qt::AlignLeft | Qt::AlignTop);
}

void PlotRenderer::drawSpeedupPoints(const ReasoningSeries &s)
{
    const QColor color = seriesColor(0);
    QCPGraph *speed = addGraph(QStringLiteral("speedup"), color);
    speed->setLineStyle(QCPGraph::lsNone);
    speed->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
    // Error bars pair with the graph's points by index, and a graph keeps its points sorted by
    // key: both are given in the same order, sorted here.
    QVector<int> order(s.speedups.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return s.speedups[a].x < s.speedups[b].x; });
    const bool intervals =
        s.speedupLow.size() == s.speedups.size() && s.speedupHigh.size() == s.speedups.size();
    QVector<double> x, y, minus, plus;
    bool anyWidth = false;
    for (int i : std::as_const(order)) {
        const CandidatePoint &p = s.speedups[i];
        x << p.x;
        y << p.y;
        minus << (intervals ? std::max(0.0, p.y - s.speedupLow[i]) : 0.0);
        plus << (intervals ? std::max(0.0, s.speedupHigh[i] - p.y) : 0.0);
        anyWidth = anyWidth || minus.last() > 0.0 || plus.last() > 0.0;
    }
    speed->setData(x, y, true);
    if (!anyWidth)
        return;
    auto *bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(QStringLiteral("95 % interval of each speedup"));
    bars->setDataPlottable(speed);
    bars->setData(minus, plus);
    bars->setPen(QPen(color.lighter(125), m_presenting ? 2.5 : 1.0));
    bars->setWhiskerWidth(m_presenting ? 8 : 5);
}

void PlotRenderer::drawTiming(qint64 selected, const std::optional<EvaluationResult> &evaluation)
{
    reset(QStringLiteral("Timing distribution of candidate %1 and its baseline").arg(selected));
    m_plot->xAxis->setLabel(QStringLiteral("time per call (ms)"));
    m_plot->yAxis->setLabel(QStringLiteral("trials"));
    const TimingHistogram h =
        evaluation ? PlotData::timing(evaluation->candidateTiming, evaluation->baselineTiming)
                   : TimingHistogram();
    if (h.binCenters.isEmpty()) {
        m_emptyReason = selected
                            ? QStringLiteral("Candidate %1 has no stored timing trials "
                                             "(not timed, or evaluated before they were kept).")
                                  .arg(selected)
                            : QStringLiteral("Select a candidate to see its timing.");
        return;
    }
    const double w = h.binWidth / 2.0;
    const struct
    {
        const QVector<double> &counts;
        double shift, median;
        int trials, color;
        const char *name;
    } sides[] = {{h.candidate, -w / 2, h.candidateMedian, h.candidateTrials, 0, "candidate"},
                 {h.baseline, w / 2, h.baselineMedian, h.baselineTrials, 1, "baseline"}};
    for (const auto &side : sides) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(QStringLiteral("%1: %2 trials, median %3 ms")
                          .arg(QLatin1String(side.name))
                          .arg(side.trials)
                          .arg(side.median, 0, 'g', 4));
        QColor fill = seriesColor(side.color);
        bars->setPen(QPen(fill.darker()));
        fill.setAlpha(160);
        bars->setBrush(fill);
        bars->setWidth(w);
        QVector<double> keys;
        for (double c : h.binCenters)
            keys.append(c + side.shift);
        bars->setData(keys, side.counts, true);
        verticalLine(m_plot, side.median, seriesColor(side.color));
    }
}

void PlotRenderer::drawRoofline(const QList<PlotRun> &runs, qint64 selected)
{
    reset(QStringLiteral("Roofline: passing candidates under the measured roofs, %1")
              .arg(runNames(runs)));
    m_plot->xAxis->setLabel(QStringLiteral("arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(QStringLiteral("achieved GFLOP/s"));
    setLogX(true);
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog));
    QList<RooflineSeries> series;
    double lo = 0.0, hi = 0.0;
    for (const PlotRun &run : runs) {
        series.append(PlotData::roofline(run));
        for (const CandidatePoint &p : series.last().points) {
            lo = lo > 0.0 ? std::min(lo, p.x) : p.x;
            hi = std::max(hi, p.x);
        }
    }
    if (hi <= 0.0) {
        m_emptyReason = QStringLiteral("No passing candidate with recorded work: this task does no "
                                       "floating-point work, or nothing has passed yet.");
        return;
    }
    const RooflineSeries &roofs = series.first(); // the runs plotted together share their task
    drawRoofs(roofs, std::min(lo, roofs.ridge()) / 4, std::max(hi, roofs.ridge()) * 4);
    for (int r = 0; r < series.size(); ++r) {
        QCPGraph *points =
            addGraph(runs.size() > 1 ? QStringLiteral("run %1: passing").arg(runs[r].run.id)
                                     : QStringLiteral("passing candidates"),
                     seriesColor(r == 0 ? 0 : r + 1));
        points->setLineStyle(QCPGraph::lsNone);
        points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        for (const CandidatePoint &p : series[r].points) {
            points->addData(p.x, p.y);
            if (p.candidateId == selected) {
                QCPGraph *mark =
                    addGraph(QStringLiteral("candidate %1").arg(selected), seriesColor(1));
                mark->setLineStyle(QCPGraph::lsNone);
                mark->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                      QPen(seriesColor(1), 2.5), Qt::NoBrush, 14));
                mark->addData(p.x, p.y);
            }
        }
        remember(series[r].points, m_plot->yAxis);
    }
}

void PlotRenderer::drawRoofs(const RooflineSeries &s, double from, double to)
{
    if (s.bandwidthGbps <= 0 || s.peakGflops <= 0)
        return;
    QVector<double> x{from, s.ridge(), to};
    QVector<double> y{s.roofAt(from), s.roofAt(s.ridge()), s.roofAt(to)};
    QCPGraph *roof = addGraph(QStringLiteral("roofs: %1 GB/s (measured), %2 GFLOP/s (peak)")
                                  .arg(s.bandwidthGbps, 0, 'f', 0)
                                  .arg(s.peakGflops, 0, 'f', 0),
                              Qt::darkGray);
    roof->setData(x, y, true);
}

void PlotRenderer::drawFastP()
{
    const FastPSeries &s = m_fastP;
    QString title = QStringLiteral("fast_p by KernelBench level: %1 problem(s) over %2 run(s) of "
                                   "the database")
                        .arg(s.problems)
                        .arg(s.runs);
    if (s.lenientRuns > 0)
        title += QStringLiteral(" (%1 lenient left out)").arg(s.lenientRuns);
    reset(title);
    m_padX = false;
    m_fixedRanges = true; // shares over p in [0, pMax]: levels and databases compare at a glance
    m_plot->xAxis->setLabel(QStringLiteral("p (speedup threshold, ×)"));
    m_plot->yAxis->setLabel(QStringLiteral("fast_p: share of problems correct and faster than p"));
    // A little room beyond 0, so steps at p = 0 and curves at 0 are not hidden by the frame.
    m_plot->xAxis->setRange(-0.05, s.pMax + 0.05);
    m_plot->yAxis->setRange(-0.03, 1.05);
    if (s.curves.isEmpty()) {
        m_emptyReason = s.lenientRuns > 0
                            ? QStringLiteral("No KernelBench runs in this database judged by the "
                                             "strict verifier (%1 lenient left out).")
                                  .arg(s.lenientRuns)
                            : QStringLiteral("No KernelBench runs in this database.");
        return;
    }
    verticalLine(m_plot, 1.0, Qt::gray); // as fast as the baseline
    QMap<int, int> colourOf;
    for (const FastPCurve &c : s.curves) {
        if (!colourOf.contains(c.level)) // one colour per level, both baselines
            colourOf.insert(c.level, int(colourOf.size()));
        const QColor color = seriesColor(colourOf.value(c.level));
        QCPGraph *graph = addGraph(QStringLiteral("level %1, %2 problem%3: vs %4")
                                       .arg(c.level)
                                       .arg(c.problems)
                                       .arg(c.problems == 1 ? QString() : QStringLiteral("s"))
                                       .arg(c.compiled ? QStringLiteral("torch.compile")
                                                       : QStringLiteral("eager PyTorch")),
                                   color);
        if (c.compiled)
            graph->setPen(QPen(color, m_presenting ? 3.5 : 1.8, Qt::DashLine));
        graph->setData(c.p, c.fraction, true);
        graph->setLineStyle(QCPGraph::lsStepLeft);
    }
}

} // namespace kiln
