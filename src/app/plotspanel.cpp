#include "plotspanel.h"

#include "engine/diagnosis/diagnosiscomparison.h"
#include "models/candidatehighlight.h"
#include "models/candidateselection.h"
#include "models/plotdata.h"
#include "models/rundocument.h"
#include "models/speedupnotes.h"
#include "models/strategycomparison.h"
#include "models/verdictstyle.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

namespace kiln {

namespace {

QString kindTitle(PlotKind kind)
{
    switch (kind) {
    case PlotKind::Speedup:
        return PlotsPanel::tr("Best speedup against compute");
    case PlotKind::Coverage:
        return PlotsPanel::tr("Coverage (pass@k, fast_p@k)");
    case PlotKind::Reasoning:
        return PlotsPanel::tr("Speedup against reasoning length");
    case PlotKind::Timing:
        return PlotsPanel::tr("Timing distribution (selected)");
    case PlotKind::Roofline:
        return PlotsPanel::tr("Roofline");
    case PlotKind::FastP:
        return PlotsPanel::tr("fast_p by KernelBench level");
    }
    return {};
}

} // namespace

void PlotsPanel::setHighlight(CandidateHighlight *highlight)
{
    m_highlight = highlight;
    connect(highlight, &CandidateHighlight::changed, this, [this] {
        if (m_options.kind == PlotKind::Speedup)
            requestRefresh();
    });
}

PlotsPanel::PlotsPanel(RunDocument *document, CandidateSelection *selection, QWidget *parent)
    : QWidget(parent), m_document(document), m_selection(selection), m_plot(new QCustomPlot),
      m_renderer(m_plot)
{
    setObjectName(QStringLiteral("plotsPanel"));
    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);
    buildControls();
    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(300); // a live run's results arrive in bursts: draw once per burst
    connect(&m_refreshTimer, &QTimer::timeout, this, &PlotsPanel::refresh);
    m_diagnosisAgain.setSingleShot(true);
    connect(&m_diagnosisAgain, &QTimer::timeout, this, &PlotsPanel::fillDiagnosisTable);
    connect(m_document, &RunDocument::runLoaded, this, [this] {
        // A replay step or its end reloads the same run: the ticked runs stay as they are.
        if (!m_document->isReplaying() && m_document->run().id != m_listedRun) {
            m_userView = false; // another run: its own ranges
            if (isComparing() && !m_fixedRuns.contains(m_document->run().id))
                setComparison({}, m_options.axis, 0); // another run: the compare view is over
            else if (!m_fixedRuns.isEmpty() && !m_fixedRuns.contains(m_document->run().id))
                setRunIds({}); // runs chosen together (a workshop exercise's) are over too
            refillRunList();
        }
        requestRefresh();
    });
    connect(m_document, &RunDocument::candidatesAppended, this, &PlotsPanel::requestRefresh);
    connect(m_document, &RunDocument::candidateChanged, this, &PlotsPanel::requestRefresh);
    connect(m_selection, &CandidateSelection::currentChanged, this, [this] {
        if (m_options.kind == PlotKind::Timing || m_options.kind == PlotKind::Roofline)
            requestRefresh();
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotsPanel::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &PlotsPanel::onMousePress);
    // A view the person zoomed or dragged to stays through the redraws of a growing run, until a
    // double-click or another plot resets it.
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis})
        connect(axis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
            if (!m_drawing)
                m_userView = true;
        });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] {
        m_userView = false;
        refresh();
    });
    m_plot->setToolTip(QString());
    m_plot->setStatusTip(tr("Drag to pan, wheel to zoom, double-click to see everything; hover "
                            "for the curves' values"));
}

void PlotsPanel::buildControls()
{
    m_kind = new QComboBox;
    m_kind->setObjectName(QStringLiteral("plotKind"));
    for (PlotKind kind : allPlotKinds())
        m_kind->addItem(kindTitle(kind), plotKindName(kind));
    m_axis = new QComboBox;
    m_axis->setObjectName(QStringLiteral("plotAxis"));
    for (ComputeAxis axis : allComputeAxes())
        m_axis->addItem(computeAxisName(axis).replace(QLatin1Char('_'), QLatin1Char(' ')),
                        computeAxisName(axis));
    m_logX = new QCheckBox(tr("Log x"));
    m_logX->setObjectName(QStringLiteral("plotLogX"));
    m_band = new QComboBox;
    m_band->setObjectName(QStringLiteral("plotBand"));
    m_band->addItems({tr("Band: min–max"), tr("Band: interquartile")});
    m_leaky = new QCheckBox(tr("Leaky-verifier overlay"));
    m_leaky->setObjectName(QStringLiteral("plotLeaky"));
    m_leaky->setToolTip(tr("Dashed: the best speedup if flagged candidates had passed"));
    m_export = new QPushButton(tr("Export…"));
    m_export->setObjectName(QStringLiteral("plotExport"));
    m_runList = new QListWidget;
    m_runList->setObjectName(QStringLiteral("plotRuns"));
    m_runList->setToolTip(tr("Runs drawn together (same task); seeds of one setting form a band"));
    // A narrow column: the plot is what the panel is for.
    m_runList->setMaximumWidth(m_runList->fontMetrics().averageCharWidth() * 30);

    auto *controls = new QHBoxLayout;
    for (QWidget *w : std::initializer_list<QWidget *>{m_kind, m_axis, m_logX, m_band, m_leaky})
        controls->addWidget(w);
    controls->addStretch();
    controls->addWidget(m_export);
    m_compareTable = new QTableWidget(0, 5);
    m_compareTable->setObjectName(QStringLiteral("compareTable"));
    m_compareTable->setHorizontalHeaderLabels({tr("Strategy"), tr("Seeds"), tr("Best at ¼ budget"),
                                               tr("Best at ½ budget"), tr("Best at full budget")});
    m_compareTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_compareTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_compareTable->setToolTip(tr("Median best verified speedup over the seeds [min–max]"));
    m_compareTable->hide();
    m_diagnosisTable = new QTableWidget(0, 0);
    m_diagnosisTable->setObjectName(QStringLiteral("compareDiagnosisTable"));
    m_diagnosisTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_diagnosisTable->setToolTip(
        tr("Run diagnosis (docs/diagnosis.md): each strategy's mean rating over its seeds, "
           "1 (not seen) to 5 (plain)"));
    m_diagnosisTable->hide();
    auto *tables = new QSplitter(Qt::Horizontal);
    tables->addWidget(m_compareTable);
    tables->addWidget(m_diagnosisTable);
    auto *plotAndTable = new QSplitter(Qt::Vertical);
    plotAndTable->addWidget(m_plot);
    plotAndTable->addWidget(tables);
    plotAndTable->setStretchFactor(0, 4);
    plotAndTable->setStretchFactor(1, 1);
    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(plotAndTable);
    split->addWidget(m_runList);
    split->setStretchFactor(0, 5);
    split->setStretchFactor(1, 1);
    split->setCollapsible(0, false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(split, 1);

    for (QComboBox *box : {m_kind, m_axis, m_band})
        connect(box, &QComboBox::currentIndexChanged, this, &PlotsPanel::controlsChanged);
    for (QCheckBox *box : {m_logX, m_leaky})
        connect(box, &QCheckBox::toggled, this, &PlotsPanel::controlsChanged);
    connect(m_runList, &QListWidget::itemChanged, this, &PlotsPanel::requestRefresh);
    connect(m_export, &QPushButton::clicked, this, &PlotsPanel::onExportClicked);
    setOptions(m_options);
}

void PlotsPanel::setOptions(const PlotOptions &options)
{
    if (options.kind != m_options.kind || options.axis != m_options.axis ||
        options.logX != m_options.logX)
        m_userView = false; // another plot: its own ranges
    m_options = options;
    m_updatingControls = true;
    m_kind->setCurrentIndex(int(allPlotKinds().indexOf(options.kind)));
    m_axis->setCurrentIndex(int(allComputeAxes().indexOf(options.axis)));
    m_logX->setChecked(options.logX);
    m_band->setCurrentIndex(options.band == SeedBand::Kind::MinMax ? 0 : 1);
    m_leaky->setChecked(options.leaky);
    m_updatingControls = false;
    const bool speedup = options.kind == PlotKind::Speedup;
    for (QWidget *w : std::initializer_list<QWidget *>{m_axis, m_logX, m_band, m_leaky})
        w->setEnabled(speedup);
    if (isVisible())
        refresh(); // what the user chose is drawn now, however large the run
    else
        m_stale = true;
}

void PlotsPanel::controlsChanged()
{
    if (m_updatingControls)
        return;
    PlotOptions o;
    o.kind = allPlotKinds().value(m_kind->currentIndex());
    o.axis = allComputeAxes().value(m_axis->currentIndex());
    o.logX = m_logX->isChecked();
    o.band = m_band->currentIndex() == 0 ? SeedBand::Kind::MinMax : SeedBand::Kind::Interquartile;
    o.leaky = m_leaky->isChecked();
    setOptions(o);
}

void PlotsPanel::setRunIds(const QList<qint64> &runIds)
{
    m_fixedRuns = runIds;
    m_runList->setVisible(runIds.isEmpty());
    requestRefresh();
}

void PlotsPanel::setComparison(const QList<qint64> &runIds, ComputeAxis axis, double budget)
{
    m_compareBudget = runIds.isEmpty() ? 0.0 : budget;
    m_compareAxis = axis;
    m_compareTable->setVisible(m_compareBudget > 0);
    m_diagnosisTable->setVisible(m_compareBudget > 0);
    m_diagnosisTable->setRowCount(0);
    m_diagnosedRuns.clear();
    if (m_compareBudget > 0) {
        PlotOptions o = m_options;
        o.kind = PlotKind::Speedup;
        o.axis = axis;
        setOptions(o);
    }
    setRunIds(runIds);
}

void PlotsPanel::setPresentation(bool on)
{
    m_renderer.setPresentation(on);
    QFont f = font();
    f.setPointSizeF(QApplication::font().pointSizeF() * (on ? 1.6 : 1.0));
    m_compareTable->setFont(f);
    refresh();
}

void PlotsPanel::fillComparisonTable()
{
    if (!isComparing())
        return;
    fillDiagnosisTable();
    const QList<StrategyComparison::Row> rows =
        StrategyComparison::rows(m_runs, m_compareAxis, m_compareBudget);
    m_compareTable->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        const StrategyComparison::Row &row = rows[r];
        m_compareTable->setItem(r, 0, new QTableWidgetItem(row.strategy));
        m_compareTable->setItem(r, 1, new QTableWidgetItem(QString::number(row.seeds)));
        for (int f = 0; f < 3; ++f)
            m_compareTable->setItem(r, 2 + f,
                                    new QTableWidgetItem(QStringLiteral("%1× [%2–%3]")
                                                             .arg(row.median[f], 0, 'f', 2)
                                                             .arg(row.low[f], 0, 'f', 2)
                                                             .arg(row.high[f], 0, 'f', 2)));
    }
}

// The compared runs' diagnoses beside the table, computed on a worker thread when the set of
// runs changes, and again while they grow, at most every kDiagnosisRefreshMs.
void PlotsPanel::fillDiagnosisTable()
{
    const QList<qint64> ids = plottedRunIds();
    if (!isComparing())
        return;
    if (m_diagnosing || (ids == m_diagnosedRuns && m_diagnosedAt.isValid() &&
                         m_diagnosedAt.elapsed() < kDiagnosisRefreshMs)) {
        // The runs may have grown since: look again once the last diagnosis is old enough.
        if (!m_diagnosisAgain.isActive())
            m_diagnosisAgain.start(kDiagnosisRefreshMs);
        return;
    }
    m_diagnosedRuns = ids;
    m_diagnosedAt.start();
    m_diagnosing = true;
    using Rows = QList<DiagnosisComparison::StrategyRow>;
    auto *watcher = new QFutureWatcher<Rows>(this);
    connect(watcher, &QFutureWatcher<Rows>::finished, this, [this, watcher, ids] {
        m_diagnosing = false;
        const Rows rows = watcher->result();
        watcher->deleteLater();
        if (ids != plottedRunIds()) { // the runs changed meanwhile: diagnose those
            m_diagnosedRuns.clear();
            fillDiagnosisTable();
            return;
        }
        const QStringList titles = DiagnosisComparison::titles();
        m_diagnosisTable->setColumnCount(int(titles.size()) + 1);
        m_diagnosisTable->setHorizontalHeaderLabels(QStringList{tr("Strategy")} + titles);
        m_diagnosisTable->setRowCount(int(rows.size()));
        for (int r = 0; r < rows.size(); ++r) {
            m_diagnosisTable->setItem(r, 0, new QTableWidgetItem(rows[r].strategy));
            for (int a = 0; a < rows[r].meanRatings.size(); ++a) {
                auto *item = new QTableWidgetItem(QString::number(rows[r].meanRatings[a], 'f', 1));
                item->setForeground(
                    VerdictStyle::ratingColor(int(std::lround(rows[r].meanRatings[a]))));
                m_diagnosisTable->setItem(r, a + 1, item);
            }
        }
    });
    watcher->setFuture(QtConcurrent::run([path = m_document->databasePath(), ids] {
        return DiagnosisComparison::byStrategy(path, ids);
    }));
}

void PlotsPanel::refillRunList()
{
    const QSignalBlocker block(m_runList);
    m_runList->clear();
    m_listedRun = m_document->hasRun() ? m_document->run().id : 0;
    if (!m_document->hasRun())
        return;
    const RunRecord &shown = m_document->run();
    for (const RunRecord &r : m_document->runs()) {
        if (r.kind != QLatin1String("search") || r.tasks != shown.tasks)
            continue;
        auto *item = new QListWidgetItem(
            tr("run %1: %2, seed %3").arg(r.id).arg(r.strategy).arg(r.seed), m_runList);
        item->setData(Qt::UserRole, r.id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(r.id == shown.id ? Qt::Checked : Qt::Unchecked);
    }
}

QList<qint64> PlotsPanel::plottedRunIds() const
{
    if (!m_fixedRuns.isEmpty())
        return m_fixedRuns;
    QList<qint64> ids;
    if (m_document->hasRun())
        ids.append(m_document->run().id);
    for (int i = 0; i < m_runList->count(); ++i) {
        const qint64 id = m_runList->item(i)->data(Qt::UserRole).toLongLong();
        if (m_runList->item(i)->checkState() == Qt::Checked && !ids.contains(id))
            ids.append(id);
    }
    return ids;
}

void PlotsPanel::requestRefresh()
{
    if (!isVisible()) {
        m_stale = true; // drawn when the panel is shown
        return;
    }
    if (!m_refreshTimer.isActive())
        m_refreshTimer.start();
}

void PlotsPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (std::exchange(m_stale, false))
        requestRefresh();
}

bool PlotsPanel::needsFacts() const
{
    return m_options.kind == PlotKind::Roofline ||
           (m_options.kind == PlotKind::Speedup &&
            (m_options.axis == ComputeAxis::Cost || m_options.axis == ComputeAxis::WallSeconds));
}

void PlotsPanel::refresh()
{
    m_refreshTimer.stop();
    m_stale = false;
    QElapsedTimer took;
    took.start();
    m_runs.clear();
    if (m_document->isOpen())
        for (qint64 id : plottedRunIds()) {
            PlotRun run = m_document->plotRun(id, needsFacts());
            if (run.run.id)
                m_runs.append(std::move(run));
        }
    if (m_options.kind == PlotKind::FastP)
        m_renderer.setFastP(kernelBenchSeries());
    const qint64 selected = m_selection->current();
    std::optional<EvaluationResult> evaluation;
    if (m_options.kind == PlotKind::Timing && selected)
        evaluation = m_document->evaluation(selected);
    const QCPRange x = m_plot->xAxis->range(), y = m_plot->yAxis->range();
    m_drawing = true;
    if (m_highlight)
        m_renderer.setHighlight(m_document->hasRun() ? m_document->run().id : 0, m_highlight->ids(),
                                m_highlight->label());
    m_renderer.draw(m_runs, m_options, selected, evaluation);
    if (m_userView) {
        m_plot->xAxis->setRange(x);
        m_plot->yAxis->setRange(y);
        m_plot->replot();
    }
    m_drawing = false;
    fillComparisonTable();
    // A large run takes a while to plot: redraw it less often, so the window stays responsive.
    m_refreshTimer.setInterval(int(std::clamp<qint64>(4 * took.elapsed(), 300, 5000)));
}

FastPSeries PlotsPanel::kernelBenchSeries()
{
    if (!m_document->isOpen())
        return {};
    const FastPReport::Collected collected = m_document->fastP();
    FastPSeries series = PlotData::fastP(collected.problems);
    series.runs = collected.runs;
    series.lenientRuns = collected.lenientRuns;
    return series;
}

QString PlotsPanel::describe(qint64 candidateId) const
{
    for (const PlotRun &run : m_runs)
        for (const CandidateSummary &c : run.candidates)
            if (c.id == candidateId) {
                QString speedup =
                    c.speedup ? QLatin1Char(' ') + SpeedupNotes::cellText(c) : QString();
                if (c.duplicateOf)
                    speedup +=
                        QStringLiteral(" (%1)").arg(SpeedupNotes::duplicateMark(*c.duplicateOf));
                return QStringLiteral("#%1 %2%3 %4 (run %5)")
                    .arg(c.id)
                    .arg(c.verdictText(), speedup, operationName(c.operation))
                    .arg(run.run.id);
            }
    return {};
}

void PlotsPanel::onMouseMove(QMouseEvent *event)
{
    if (event->buttons() != Qt::NoButton)
        return; // dragging the view
    // A candidate under the cursor, else every curve's value where the cursor is.
    const qint64 id = m_renderer.candidateAt(event->position());
    const QString text = id ? describe(id) : m_renderer.readoutAt(event->position());
    if (!text.isEmpty())
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    else
        QToolTip::hideText();
}

void PlotsPanel::onMousePress(QMouseEvent *event)
{
    const qint64 id = m_renderer.candidateAt(event->position());
    // Only candidates of the shown run can be selected; another run's are named on hover.
    if (id && m_document->rowOf(id) >= 0)
        m_selection->setCurrent(id);
}

void PlotsPanel::onExportClicked()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export plot"), QStringLiteral("%1.png").arg(plotKindName(m_options.kind)),
        tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg);;"
           "Curves as CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportTo(path, 0, 0, &error))
        QMessageBox::warning(this, tr("Export plot"), error);
}

bool PlotsPanel::exportTo(const QString &path, int width, int height, QString *error)
{
    if (m_refreshTimer.isActive() || m_stale)
        refresh();
    const int w = width > 0 ? width : m_plot->width();
    const int h = height > 0 ? height : m_plot->height();
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png"))
        ok = m_plot->savePng(path, w, h);
    else if (suffix == QLatin1String("pdf"))
        ok = m_plot->savePdf(path, w, h);
    else if (suffix == QLatin1String("svg"))
        ok = exportSvg(path, w, h);
    else if (suffix == QLatin1String("csv"))
        ok = exportCsv(path);
    else {
        *error = tr("cannot export to %1: the name must end in .png, .pdf, .svg or .csv").arg(path);
        return false;
    }
    if (!ok)
        *error = tr("could not write %1").arg(path);
    return ok;
}

bool PlotsPanel::exportCsv(const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    file.write(m_renderer.csv().toUtf8());
    return file.commit();
}

bool PlotsPanel::exportSvg(const QString &path, int width, int height)
{
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(kindTitle(m_options.kind));
    QCPPainter painter;
    if (!painter.begin(&svg))
        return false;
    m_plot->toPainter(&painter, width, height);
    return painter.end() && QFileInfo(path).size() > 0;
}

} // namespace kiln
