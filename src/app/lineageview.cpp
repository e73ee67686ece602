#include "lineageview.h"

#include "models/candidatehighlight.h"
#include "models/candidateselection.h"
#include "models/rundocument.h"
#include "models/speedupnotes.h"
#include "models/verdictstyle.h"

#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QHelpEvent>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

constexpr double minScale = 0.002;
constexpr double maxScale = 6.0;
constexpr double baseRadius = 7.0;

// A node outline in world units centred on the origin, one per operation.
QPainterPath shapePath(Operation op, double r)
{
    QPainterPath path;
    switch (op) {
    case Operation::Sample:
        path.addEllipse(QPointF(0, 0), r, r);
        break;
    case Operation::Refine:
        path.addRoundedRect(QRectF(-r * 0.9, -r * 0.9, r * 1.8, r * 1.8), r * 0.3, r * 0.3);
        break;
    case Operation::Mutate:
        path.moveTo(0, -r * 1.2);
        path.lineTo(r * 1.2, 0);
        path.lineTo(0, r * 1.2);
        path.lineTo(-r * 1.2, 0);
        path.closeSubpath();
        break;
    case Operation::Crossover:
        // A hexagon: two parents meeting.
        for (int k = 0; k < 6; ++k) {
            const double a = M_PI / 3.0 * k;
            const QPointF p(r * 1.1 * std::cos(a), r * 1.1 * std::sin(a));
            if (k == 0)
                path.moveTo(p);
            else
                path.lineTo(p);
        }
        path.closeSubpath();
        break;
    case Operation::Manual:
        for (int k = 0; k < 10; ++k) {
            const double a = -M_PI / 2.0 + M_PI / 5.0 * k;
            const double rr = (k % 2 == 0) ? r * 1.3 : r * 0.55;
            const QPointF p(rr * std::cos(a), rr * std::sin(a));
            if (k == 0)
                path.moveTo(p);
            else
                path.lineTo(p);
        }
        path.closeSubpath();
        break;
    }
    return path;
}

QColor darker(const QColor &c)
{
    return c.darker(150);
}

// Outline and fill of a node: hollow and dashed when evicted, dotted when its judgement is
// another's reused (nothing of it was measured), solid otherwise.
void setNodeStyle(QPainter &painter, const CandidateSummary &c)
{
    const QColor color = VerdictStyle::color(c);
    if (c.ghost) {
        painter.setPen(QPen(color, 1.6, Qt::DashLine));
        painter.setBrush(QColor(0xff, 0xff, 0xff, 230));
    } else if (c.duplicateOf) {
        painter.setPen(QPen(darker(color), 1.6, Qt::DotLine));
        painter.setBrush(color.lighter(125));
    } else {
        painter.setPen(QPen(darker(color), 1.2));
        painter.setBrush(color);
    }
}

// Only as much text as fits between neighbours: id and speedup ("#12 2.31×✓" once confirmed),
// the id, or none.
QString nodeLabel(const CandidateSummary &c, const QFontMetricsF &metrics, double room)
{
    QString text = QStringLiteral("#%1").arg(c.id);
    if (c.speedup && c.evaluated) {
        const QString full = text + QStringLiteral(" %1×%2")
                                        .arg(*c.speedup, 0, 'f', 2)
                                        .arg(c.confirmed ? QStringLiteral("✓") : QString());
        if (metrics.horizontalAdvance(full) <= room)
            text = full;
    }
    return metrics.horizontalAdvance(text) > room ? QString() : text;
}

// The keys of the node styles that are no verdict or operation: the path to the best, an
// evicted node, a duplicate, and what the size means.
void paintStyleKeys(QPainter &painter, int x, int y, int lineH)
{
    const QColor text(0x33, 0x3a, 0x44);
    painter.setPen(QPen(VerdictStyle::bestPathColor(), 3));
    painter.drawLine(QPointF(x, y + lineH / 2.0), QPointF(x + 12, y + lineH / 2.0));
    painter.setPen(text);
    painter.drawText(QRect(x + 17, y, 110, lineH), Qt::AlignVCenter,
                     LineageView::tr("path to best"));
    y += lineH;
    painter.setPen(QPen(QColor(0x90, 0x98, 0xa3), 1.4, Qt::DashLine));
    painter.setBrush(Qt::white);
    painter.drawEllipse(QPointF(x + 6, y + lineH / 2.0), 4.6, 4.6);
    painter.setPen(text);
    painter.drawText(QRect(x + 17, y, 110, lineH), Qt::AlignVCenter,
                     LineageView::tr("evicted (ghost)"));
    y += lineH;
    painter.save();
    painter.translate(x + 6, y + lineH / 2.0);
    painter.setPen(QPen(QColor(0x50, 0x58, 0x63), 1.4, Qt::DotLine));
    painter.setBrush(QColor(0xc9, 0xcf, 0xd6));
    painter.drawEllipse(QPointF(0, 0), 4.6, 4.6);
    painter.setPen(QPen(text, 1.0));
    for (double dy : {-1.3, 1.3})
        painter.drawLine(QPointF(-2.4, dy), QPointF(2.4, dy));
    painter.restore();
    painter.setPen(text);
    painter.drawText(QRect(x + 17, y, 110, lineH), Qt::AlignVCenter,
                     LineageView::tr("duplicate (reused)"));
    y += lineH;
    painter.setPen(QColor(0x6c, 0x75, 0x80));
    painter.drawText(QRect(x, y, 120, lineH), Qt::AlignVCenter, LineageView::tr("size = speedup"));
}

// The "=" of a duplicate source, at the node's lower left (node units, centred on the node).
void paintDuplicateMark(QPainter &painter, double r)
{
    const QPointF at(-r * 0.95, r * 0.95);
    painter.setPen(QPen(QColor(0x55, 0x60, 0x70), 1.0));
    painter.setBrush(Qt::white);
    painter.drawEllipse(at, 4.6, 4.6);
    painter.setPen(QPen(QColor(0x33, 0x3a, 0x44), 1.2, Qt::SolidLine, Qt::FlatCap));
    for (double dy : {-1.3, 1.3})
        painter.drawLine(at + QPointF(-2.4, dy), at + QPointF(2.4, dy));
}

// The tooltip's lines on how sure the speedup is: its interval, how it compares with its
// parents', and whose judgement a duplicate reuses.
QString judgementLines(const RunDocument &document, const CandidateSummary &c)
{
    QString text;
    if (const std::optional<SpeedupInterval> interval = c.speedupInterval())
        text += QStringLiteral("<br/>") + SpeedupNotes::intervalText(*interval).toHtmlEscaped();
    for (const std::optional<qint64> &id : {c.parent, c.secondParent}) {
        const int row = id ? document.rowOf(*id) : -1;
        const QString note =
            row >= 0 ? SpeedupNotes::differenceText(c, document.at(row)) : QString();
        if (!note.isEmpty())
            text += QStringLiteral("<br/>") + note.toHtmlEscaped();
    }
    if (c.duplicateOf)
        text += QStringLiteral("<br/><i>%1</i>")
                    .arg(SpeedupNotes::duplicateNote(*c.duplicateOf).toHtmlEscaped());
    return text;
}

} // namespace

LineageView::LineageView(RunDocument *document, CandidateSelection *selection, QWidget *parent)
    : QWidget(parent), m_document(document), m_selection(selection)
{
    setObjectName(QStringLiteral("lineageView"));
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(320, 240);
    m_relayoutTimer.setSingleShot(true);
    m_relayoutTimer.setInterval(150);
    connect(&m_relayoutTimer, &QTimer::timeout, this, [this] { relayout(true); });
    // Verdicts of a live run arrive many times a second: the scene is drawn again at most ten
    // times a second for them, and panning in between only moves the picture already drawn.
    m_verdictTimer.setSingleShot(true);
    m_verdictTimer.setInterval(100);
    connect(&m_verdictTimer, &QTimer::timeout, this, &LineageView::invalidateCache);

    connect(document, &RunDocument::runLoaded, this, &LineageView::rebuild);
    connect(document, &RunDocument::loadStarted, this, [this] { update(); });
    connect(document, &RunDocument::loadFinished, this, [this] { update(); });
    connect(document, &RunDocument::candidatesAppended, this, &LineageView::onAppended);
    connect(document, &RunDocument::candidateChanged, this, [this] {
        if (!m_verdictTimer.isActive())
            m_verdictTimer.start();
    });
    connect(document, &RunDocument::bestChanged, this, [this] {
        updateBestPath();
        if (!m_verdictTimer.isActive())
            m_verdictTimer.start();
    });
    connect(selection, &CandidateSelection::currentChanged, this, &LineageView::onCurrentChanged);
    connect(selection, &CandidateSelection::compareChanged, this, [this](qint64 id) {
        m_compareRow = id ? m_document->rowOf(id) : -1;
        update();
    });
    rebuild();
}

void LineageView::setLayoutChoice(LayoutChoice choice)
{
    if (choice == m_choice)
        return;
    m_choice = choice;
    relayout(false);
}

void LineageView::rebuild()
{
    m_graph.build(*m_document);
    m_selectedRow = m_selection->current() ? m_document->rowOf(m_selection->current()) : -1;
    m_compareRow = m_selection->compare() ? m_document->rowOf(m_selection->compare()) : -1;
    m_hoverRow = -1;
    m_autoFit = true;
    relayout(false);
}

void LineageView::onAppended(int first, int last)
{
    m_graph.append(*m_document, first, last);
    if (!m_relayoutTimer.isActive()) // at most 150 ms behind, even while results keep coming
        m_relayoutTimer.start();
}

void LineageView::relayout(bool keepView)
{
    TreeLayout::Mode mode = TreeLayout::Mode::Tidy;
    if (m_choice == LayoutChoice::Layered ||
        (m_choice == LayoutChoice::Automatic && m_graph.hasCrossover()))
        mode = TreeLayout::Mode::Layered;
    m_layout.compute(m_graph, mode);
    m_cacheValid = false;
    int islands = 1;
    for (const CandidateSummary &c : m_document->candidates())
        islands = std::max(islands, c.island + 1);
    m_islandCount = islands;
    updateBestPath();
    emit layoutModeChanged(mode);
    if (!keepView || m_autoFit)
        fitToView();
    else
        update();
}

void LineageView::updateBestPath()
{
    m_onBestPath.fill(false, m_graph.size());
    const int best = m_document->bestRow();
    if (best < 0 || best >= m_graph.size())
        return;
    for (int row : m_graph.pathToRoot(best))
        m_onBestPath[row] = true;
}

QPointF LineageView::mapToWorld(QPointF screen) const
{
    return (screen - m_offset) / m_scale;
}

QPointF LineageView::mapFromWorld(QPointF world) const
{
    return world * m_scale + m_offset;
}

std::optional<QPointF> LineageView::nodeScreenPosition(qint64 candidateId) const
{
    const int row = m_document->rowOf(candidateId);
    if (row < 0 || row >= m_layout.size() || !m_layout.isVisible(row))
        return std::nullopt;
    return mapFromWorld(m_layout.position(row));
}

int LineageView::rowAt(QPointF screen) const
{
    const double radius = std::max(baseRadius * 1.8, 6.0 / m_scale);
    return m_layout.nodeAt(mapToWorld(screen), radius);
}

double LineageView::nodeRadius(int row) const
{
    const CandidateSummary &c = m_document->at(row);
    if (!c.speedup || *c.speedup <= 0.0)
        return baseRadius;
    // 0.5x .. 4x maps to 0.75 .. 1.75 of the base size.
    const double t = std::clamp((std::log2(*c.speedup) + 1.0) / 3.0, 0.0, 1.0);
    return baseRadius * (0.75 + t);
}

void LineageView::fitToView()
{
    QRectF b = m_layout.bounds();
    if (b.isNull() && m_layout.size() == 0) {
        m_scale = 1.0;
        m_offset = QPointF(width() / 2.0, height() / 2.0);
        update();
        return;
    }
    b = b.adjusted(-40, -40, 40, 60);
    const double sx = width() / std::max(b.width(), 1.0);
    const double sy = height() / std::max(b.height(), 1.0);
    m_scale = std::clamp(std::min(sx, sy), minScale, 1.6);
    m_offset = QPointF(width() / 2.0, height() / 2.0) - b.center() * m_scale;
    emit zoomChanged(m_scale);
    update();
}

void LineageView::zoomIn()
{
    m_autoFit = false;
    zoomBy(1.25, QPointF(width() / 2.0, height() / 2.0));
}

void LineageView::zoomOut()
{
    m_autoFit = false;
    zoomBy(0.8, QPointF(width() / 2.0, height() / 2.0));
}

void LineageView::zoomBy(double factor, QPointF anchor)
{
    const QPointF world = mapToWorld(anchor);
    m_scale = std::clamp(m_scale * factor, minScale, maxScale);
    m_offset = anchor - world * m_scale;
    emit zoomChanged(m_scale);
    update();
}

void LineageView::panBy(QPointF delta)
{
    m_offset += delta;
    update();
}

bool LineageView::findCandidate(qint64 candidateId)
{
    const int row = m_document->rowOf(candidateId);
    if (row < 0)
        return false;
    // Reveal it if a collapsed ancestor hides it.
    for (int ancestor : m_graph.pathToRoot(row)) {
        if (ancestor != row && m_graph.isCollapsed(ancestor))
            m_graph.setCollapsed(ancestor, false);
    }
    if (!m_layout.isVisible(row) || m_layout.size() != m_graph.size())
        relayout(true);
    m_selection->setCurrent(candidateId);
    m_autoFit = false;
    if (m_scale < 0.6) {
        const QPointF center(width() / 2.0, height() / 2.0);
        m_scale = 0.9;
        m_offset = center - m_layout.position(row) * m_scale;
        emit zoomChanged(m_scale);
    } else {
        m_offset += QPointF(width() / 2.0, height() / 2.0) - mapFromWorld(m_layout.position(row));
    }
    update();
    return true;
}

void LineageView::setCollapsed(int row, bool collapsed)
{
    if (row < 0 || row >= m_graph.size())
        return;
    m_graph.setCollapsed(row, collapsed);
    const QPointF before = mapFromWorld(m_layout.position(row));
    m_autoFit = false;
    relayout(true);
    // Keep the toggled node under the cursor rather than jumping.
    m_offset += before - mapFromWorld(m_layout.position(row));
    update();
}

void LineageView::expandAll()
{
    m_graph.expandAll();
    relayout(true);
}

void LineageView::setShowLegend(bool show)
{
    m_showLegend = show;
    update();
}

void LineageView::selectBest()
{
    const int best = m_document->bestRow();
    if (best >= 0)
        findCandidate(m_document->at(best).id);
}

void LineageView::onCurrentChanged(qint64 candidateId)
{
    m_selectedRow = candidateId ? m_document->rowOf(candidateId) : -1;
    if (m_selectedRow >= 0)
        ensureVisible(m_selectedRow);
    update();
}

void LineageView::ensureVisible(int row)
{
    if (!isVisible())
        return; // not laid out yet: the first fit shows everything anyway
    if (row >= m_layout.size() || !m_layout.isVisible(row))
        return;
    const QPointF p = mapFromWorld(m_layout.position(row));
    const QRectF inner = QRectF(rect()).adjusted(30, 30, -30, -30);
    if (!inner.contains(p)) {
        m_offset += QPointF(width() / 2.0, height() / 2.0) - p;
        m_autoFit = false;
    }
}

void LineageView::select(int row)
{
    if (row >= 0 && !m_document->at(row).placeholder)
        m_selection->setCurrent(m_document->at(row).id);
}

// ---- painting ---------------------------------------------------------------------------------

void LineageView::paintEvent(QPaintEvent *)
{
    QElapsedTimer timer;
    timer.start();
    QPainter painter(this);
    const QColor background(0xfa, 0xfb, 0xfc);

    if (!m_document->hasRun() || m_layout.size() == 0) {
        painter.fillRect(rect(), background);
        painter.setPen(QColor(0x70, 0x78, 0x84));
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 1.2);
        painter.setFont(f);
        painter.drawText(rect(), Qt::AlignCenter,
                         m_document->isLoading() ? tr("Reading the run…")
                         : m_document->hasRun()
                             ? tr("This run has no candidates yet.")
                             : tr("Open a workspace database (File ▸ Open) to explore a run."));
        ++m_paintCount;
        m_lastPaintMs = timer.nsecsElapsed() / 1e6;
        return;
    }

    // The scene (edges, nodes, labels) is rendered into an image a quarter view larger on every
    // side, so panning within that margin only blits it; while zooming it is rendered without a
    // margin. Selection and hover marks, the info box and the legend are drawn on top each frame.
    const bool zooming = m_cacheScale != m_scale;
    const QPointF shift = m_offset - m_cacheOffset;
    const bool reusable = m_cacheValid && !zooming && m_cacheSize == size() &&
                          std::abs(shift.x()) <= m_cacheMargin.x() &&
                          std::abs(shift.y()) <= m_cacheMargin.y();
    if (!reusable) {
        const QPoint margin = zooming ? QPoint(0, 0) : QPoint(width() / 4, height() / 4);
        const QSize extent = size() + QSize(2 * margin.x(), 2 * margin.y());
        const qreal dpr = devicePixelRatioF();
        if (m_cache.size() != extent * dpr) {
            m_cache = QImage(extent * dpr, QImage::Format_ARGB32_Premultiplied);
            m_cache.setDevicePixelRatio(dpr);
        }
        m_cache.fill(background);
        QPainter scene(&m_cache);
        const QPointF saved = m_offset;
        m_offset += QPointF(margin);
        paintScene(scene, QRectF(QPointF(0, 0), QSizeF(extent)));
        m_offset = saved;
        m_cacheOffset = m_offset;
        m_cacheScale = m_scale;
        m_cacheMargin = margin;
        m_cacheSize = size();
        m_cacheValid = true;
    }
    const QPointF d = m_offset - m_cacheOffset;
    painter.drawImage(QPointF(-m_cacheMargin.x() + d.x(), -m_cacheMargin.y() + d.y()), m_cache);
    paintMarks(painter);
    paintOverlay(painter);
    if (m_showLegend)
        paintLegend(painter);
    ++m_paintCount;
    m_lastPaintMs = timer.nsecsElapsed() / 1e6;
}

void LineageView::invalidateCache()
{
    m_cacheValid = false;
    update();
}

void LineageView::setHighlight(CandidateHighlight *highlight)
{
    m_highlight = highlight;
    connect(highlight, &CandidateHighlight::changed, this, qOverload<>(&QWidget::update));
}

void LineageView::paintMarks(QPainter &painter)
{
    painter.setRenderHint(QPainter::Antialiasing, true);
    const bool detailed = m_scale * baseRadius >= 2.5;
    const double nodeScale = m_scale * (1.0 + 0.5 * std::clamp(1.0 - m_scale, 0.0, 1.0));
    paintHighlight(painter, detailed, nodeScale);
    for (int i : {m_hoverRow, m_compareRow, m_selectedRow}) {
        if (i < 0 || i >= m_layout.size() || !m_layout.isVisible(i))
            continue;
        const QPointF center = mapFromWorld(m_layout.position(i));
        const double r = detailed ? (nodeRadius(i) + 5.5) * nodeScale
                                  : std::max(4.0, baseRadius * m_scale * 1.5);
        const QColor ring = i == m_selectedRow  ? VerdictStyle::selectionColor()
                            : i == m_compareRow ? VerdictStyle::compareColor()
                                                : QColor(0x55, 0x60, 0x70, 160);
        painter.setPen(QPen(ring, i == m_selectedRow || i == m_compareRow ? 2.5 : 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(center, r, r);
    }
}

// The highlighted candidates' rings, dashed, under the selection's.
void LineageView::paintHighlight(QPainter &painter, bool detailed, double nodeScale)
{
    if (!m_highlight || m_highlight->isEmpty())
        return;
    QPen pen(VerdictStyle::highlightColor(), 2.5, Qt::DashLine);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    for (qint64 id : m_highlight->ids()) {
        const int i = m_document->rowOf(id);
        if (i < 0 || i >= m_layout.size() || !m_layout.isVisible(i))
            continue;
        const double r = detailed ? (nodeRadius(i) + 8.0) * nodeScale
                                  : std::max(6.0, baseRadius * m_scale * 2.0);
        painter.drawEllipse(mapFromWorld(m_layout.position(i)), r, r);
    }
}

// The edges of one frame, batched per pen.
struct LineageView::EdgeBatches
{
    QVector<QLineF> normal;
    QVector<QLineF> ghost;
    QVector<QLineF> crossover;
    QVector<QLineF> best;
};

// What every node of one detailed frame shares: fonts, the room for a label, the best row and how
// much nodes are scaled.
struct LineageView::NodeDecor
{
    QFont labelFont;
    QFont badgeFont;
    QFontMetricsF metrics;
    double room;
    bool labels;
    int best;
    double nodeScale;
};

void LineageView::paintScene(QPainter &painter, const QRectF &target)
{
    const QRectF world =
        QRectF(mapToWorld(target.topLeft()), mapToWorld(target.bottomRight()))
            .adjusted(-3 * baseRadius, -3 * baseRadius, 3 * baseRadius, 3 * baseRadius);
    const bool detailed = m_scale * baseRadius >= 2.5;
    paintEdges(painter, edgesIn(world, detailed), detailed);
    const QVector<int> visible = m_layout.nodesIn(world);
    if (!detailed)
        paintCoarseNodes(painter, visible);
    else
        paintDetailedNodes(painter, visible);
}

LineageView::EdgeBatches LineageView::edgesIn(const QRectF &world, bool detailed) const
{
    const bool tidy = m_layout.mode() == TreeLayout::Mode::Tidy;
    const QVector<QPointF> &pos = m_layout.positions();
    const int n = m_layout.size();

    // Culled by their bounding box.
    EdgeBatches edges;
    edges.normal.reserve(2048);
    const double elbow = m_layout.ySpacing * 0.5;
    auto addEdge = [&](int from, int to, QVector<QLineF> &into, bool elbowed) {
        const QPointF a = pos[from];
        const QPointF b = pos[to];
        const QRectF box = QRectF(a, b).normalized();
        if (!box.adjusted(-1, -1, 1, 1).intersects(world))
            return;
        const QPointF sa = mapFromWorld(a);
        const QPointF sb = mapFromWorld(b);
        if (elbowed && detailed) {
            const double my = (b.y() - elbow) * m_scale + m_offset.y();
            into.append(QLineF(sa, QPointF(sa.x(), my)));
            into.append(QLineF(QPointF(sa.x(), my), QPointF(sb.x(), my)));
            into.append(QLineF(QPointF(sb.x(), my), sb));
        } else {
            into.append(QLineF(sa, sb));
        }
    };
    for (int i = 0; i < n; ++i) {
        if (!m_layout.isVisible(i))
            continue;
        const int p = m_graph.parent(i);
        if (p >= 0 && m_layout.isVisible(p)) {
            const bool onBest = m_onBestPath[i] && m_onBestPath[p];
            const bool isGhost = m_document->at(p).ghost || m_document->at(i).ghost;
            addEdge(p, i, onBest ? edges.best : (isGhost ? edges.ghost : edges.normal), tidy);
        }
        const int q = m_graph.secondParent(i);
        if (q >= 0 && m_layout.isVisible(q))
            addEdge(q, i, edges.crossover, false);
    }
    return edges;
}

void LineageView::paintEdges(QPainter &painter, const EdgeBatches &edges, bool detailed)
{
    painter.setRenderHint(QPainter::Antialiasing, detailed && m_layout.size() < 20000);
    const double edgeWidth = detailed ? std::clamp(1.4 * m_scale, 0.8, 2.0) : 0.7;
    painter.setPen(QPen(QColor(0x9a, 0xa3, 0xae), edgeWidth));
    painter.drawLines(edges.normal);
    painter.setPen(QPen(QColor(0xbb, 0xc1, 0xc8), edgeWidth, Qt::DashLine));
    painter.drawLines(edges.ghost);
    painter.setPen(
        QPen(QColor(0x6c, 0x8e, 0xbf), edgeWidth, detailed ? Qt::DashLine : Qt::SolidLine));
    painter.drawLines(edges.crossover);
    painter.setPen(QPen(VerdictStyle::bestPathColor(), std::max(2.5, 3.5 * std::min(m_scale, 1.0)),
                        Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawLines(edges.best);
}

// A few pixels per node: coloured squares, no outlines.
void LineageView::paintCoarseNodes(QPainter &painter, const QVector<int> &visible)
{
    const QVector<QPointF> &pos = m_layout.positions();
    const double s = std::max(2.0, 2.0 * baseRadius * m_scale);
    painter.setRenderHint(QPainter::Antialiasing, false);
    for (int i : visible) {
        const QPointF p = mapFromWorld(pos[i]);
        const CandidateSummary &c = m_document->at(i);
        QColor color = VerdictStyle::color(c);
        if (c.ghost)
            color = color.lighter(140);
        painter.fillRect(QRectF(p.x() - s / 2, p.y() - s / 2, s, s), color);
    }
    for (int i : visible) {
        if (m_onBestPath[i]) {
            const QPointF p = mapFromWorld(pos[i]);
            painter.fillRect(QRectF(p.x() - s, p.y() - s, 2 * s, 2 * s),
                             VerdictStyle::bestPathColor());
            painter.fillRect(QRectF(p.x() - s / 2, p.y() - s / 2, s, s),
                             VerdictStyle::color(m_document->at(i)));
        }
    }
}

void LineageView::paintDetailedNodes(QPainter &painter, const QVector<int> &visible)
{
    painter.setRenderHint(QPainter::Antialiasing, true);
    QFont labelFont = font();
    labelFont.setPointSizeF(std::clamp(7.5 * m_scale, 6.5, 10.0));
    const QFontMetricsF metrics(labelFont);
    const double room = m_layout.xSpacing * m_scale - 4.0;
    QFont badgeFont = font();
    badgeFont.setPointSizeF(std::clamp(5.5 * m_scale, 5.0, 8.0));
    badgeFont.setBold(true);
    const NodeDecor decor{
        labelFont,
        badgeFont,
        metrics,
        room,
        room >= metrics.horizontalAdvance(QStringLiteral("#0")),
        m_document->bestRow(),
        // Zoomed out, nodes shrink slower than the spacing so colours and shapes stay readable.
        m_scale * (1.0 + 0.5 * std::clamp(1.0 - m_scale, 0.0, 1.0)),
    };
    for (int i : visible)
        paintDetailedNode(painter, i, decor);
}

void LineageView::paintDetailedNode(QPainter &painter, int row, const NodeDecor &decor)
{
    const CandidateSummary &c = m_document->at(row);
    const double r = nodeRadius(row);
    const QPointF center = mapFromWorld(m_layout.positions()[row]);
    painter.save();
    painter.translate(center);
    painter.scale(decor.nodeScale, decor.nodeScale);
    const QPainterPath path = shapePath(c.operation, r);
    if (m_onBestPath[row]) {
        painter.setPen(QPen(VerdictStyle::bestPathColor(), row == decor.best ? 6.0 : 4.0));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
    }
    setNodeStyle(painter, c);
    painter.drawPath(path);
    if (c.duplicateOf && m_scale * baseRadius >= 3.5)
        paintDuplicateMark(painter, r);
    if (m_islandCount > 1 && m_scale * baseRadius >= 3.5 && !c.placeholder)
        paintIslandBadge(painter, c.island, r, center, decor);
    if (m_graph.isCollapsed(row)) {
        painter.setPen(QPen(QColor(0x55, 0x60, 0x70), 1.2));
        painter.setBrush(QColor(0xee, 0xf0, 0xf3));
        painter.drawRoundedRect(QRectF(r + 3, -5, 20, 10), 4, 4);
    }
    painter.restore();
    if (m_graph.isCollapsed(row) && m_scale >= 0.5) {
        painter.setFont(decor.badgeFont);
        painter.setPen(QColor(0x33, 0x3a, 0x44));
        const double s = decor.nodeScale;
        painter.drawText(QRectF(center.x() + (r + 3) * s, center.y() - 5 * s, 20 * s, 10 * s),
                         Qt::AlignCenter, QStringLiteral("+%1").arg(m_graph.descendantCount(row)));
    }
    if (decor.labels) {
        painter.setFont(decor.labelFont);
        painter.setPen(c.ghost ? QColor(0x99, 0x99, 0x99) : QColor(0x30, 0x36, 0x3d));
        const double top = center.y() + (r + 3) * decor.nodeScale;
        painter.drawText(QRectF(center.x() - 60, top, 120, 30), Qt::AlignHCenter | Qt::AlignTop,
                         nodeLabel(c, decor.metrics, decor.room));
    }
}

// The island's badge at the node's upper right, drawn in node units; its number is drawn
// untransformed so the text stays crisp.
void LineageView::paintIslandBadge(QPainter &painter, int island, double r, QPointF center,
                                   const NodeDecor &decor)
{
    const QPointF b(r * 0.95, -r * 0.95);
    painter.setPen(QPen(Qt::white, 1.0));
    painter.setBrush(VerdictStyle::islandColor(island));
    painter.drawEllipse(b, 4.6, 4.6);
    if (m_scale >= 0.9) {
        painter.setFont(decor.badgeFont);
        painter.setPen(Qt::white);
        painter.save();
        painter.resetTransform();
        const QPointF sb = center + b * decor.nodeScale;
        painter.drawText(QRectF(sb.x() - 8, sb.y() - 8, 16, 16), Qt::AlignCenter,
                         QString::number(island));
        painter.restore();
    }
}

void LineageView::paintOverlay(QPainter &painter)
{
    if (m_document->isLoading()) {
        // Another run is being read: say so over the one still shown.
        painter.fillRect(rect(), QColor(250, 251, 252, 170));
        painter.setPen(QColor(0x55, 0x5d, 0x68));
        painter.drawText(rect(), Qt::AlignCenter, tr("Reading the run…"));
    }
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QString mode =
        m_layout.mode() == TreeLayout::Mode::Tidy ? tr("tidy tree") : tr("layered DAG");
    int shown = 0;
    for (int i = 0; i < m_layout.size(); ++i)
        shown += m_layout.isVisible(i) ? 1 : 0;
    QString text = tr("%1 · %2 nodes · zoom %3%")
                       .arg(mode, QLocale().toString(shown))
                       .arg(qRound(m_scale * 100));
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    painter.setFont(f);
    const QRect r = painter.fontMetrics().boundingRect(text).adjusted(-8, -4, 8, 4);
    const QRect box(8, 8, r.width(), r.height());
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(255, 255, 255, 215));
    painter.drawRoundedRect(box, 4, 4);
    painter.setPen(QColor(0x55, 0x5d, 0x68));
    painter.drawText(box, Qt::AlignCenter, text);
}

void LineageView::paintLegend(QPainter &painter)
{
    painter.setRenderHint(QPainter::Antialiasing, true);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    painter.setFont(f);
    const int lineH = painter.fontMetrics().height() + 3;
    const QList<Verdict> verdicts = allVerdicts();
    struct Op
    {
        Operation op;
        QString name;
    };
    const QList<Op> ops{{Operation::Sample, tr("sample")},
                        {Operation::Refine, tr("refine")},
                        {Operation::Mutate, tr("mutate")},
                        {Operation::Crossover, tr("crossover")},
                        {Operation::Manual, tr("manual")}};
    const int rows = int(std::max<qsizetype>(verdicts.size() + 1, ops.size() + 4));
    const int w = 250;
    const int h = rows * lineH + 14;
    const QRect box(8, height() - h - 8, w, h);
    painter.setPen(QColor(0xd5, 0xd9, 0xde));
    painter.setBrush(QColor(255, 255, 255, 228));
    painter.drawRoundedRect(box, 6, 6);

    int y = box.top() + 7;
    const int x1 = box.left() + 10;
    for (Verdict v : verdicts) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(VerdictStyle::color(v));
        painter.drawEllipse(QPointF(x1 + 5, y + lineH / 2.0), 5, 5);
        painter.setPen(QColor(0x33, 0x3a, 0x44));
        painter.drawText(QRect(x1 + 15, y, 100, lineH), Qt::AlignVCenter, VerdictStyle::label(v));
        y += lineH;
    }
    painter.setPen(QPen(VerdictStyle::pendingColor().darker(130), 1));
    painter.setBrush(VerdictStyle::pendingColor());
    painter.drawEllipse(QPointF(x1 + 5, y + lineH / 2.0), 5, 5);
    painter.setPen(QColor(0x33, 0x3a, 0x44));
    painter.drawText(QRect(x1 + 15, y, 100, lineH), Qt::AlignVCenter, tr("pending"));

    y = box.top() + 7;
    const int x2 = box.left() + 125;
    for (const Op &op : ops) {
        painter.save();
        painter.translate(x2 + 6, y + lineH / 2.0);
        painter.setPen(QPen(QColor(0x50, 0x58, 0x63), 1));
        painter.setBrush(QColor(0xc9, 0xcf, 0xd6));
        painter.drawPath(shapePath(op.op, 4.6));
        painter.restore();
        painter.setPen(QColor(0x33, 0x3a, 0x44));
        painter.drawText(QRect(x2 + 17, y, 100, lineH), Qt::AlignVCenter, op.name);
        y += lineH;
    }
    paintStyleKeys(painter, x2, y, lineH);
}

// ---- interaction ------------------------------------------------------------------------------

void LineageView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (m_autoFit)
        fitToView();
}

void LineageView::wheelEvent(QWheelEvent *event)
{
    m_autoFit = false;
    const double factor = std::pow(1.0015, event->angleDelta().y());
    zoomBy(factor, event->position());
    event->accept();
}

void LineageView::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->position().toPoint();
    m_lastDragPos = event->position();
    m_dragging = false;
    setFocus();
    if (event->button() == Qt::LeftButton)
        setCursor(Qt::ClosedHandCursor);
}

void LineageView::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton) {
        if (!m_dragging && (event->position().toPoint() - m_pressPos).manhattanLength() > 3)
            m_dragging = true;
        if (m_dragging) {
            m_autoFit = false;
            panBy(event->position() - m_lastDragPos);
            m_lastDragPos = event->position();
        }
        return;
    }
    const int row = rowAt(event->position());
    if (row != m_hoverRow) {
        m_hoverRow = row;
        update();
    }
}

void LineageView::mouseReleaseEvent(QMouseEvent *event)
{
    unsetCursor();
    if (event->button() != Qt::LeftButton || m_dragging) {
        m_dragging = false;
        return;
    }
    const int row = rowAt(event->position());
    if (row < 0 || m_document->at(row).placeholder)
        return;
    if (event->modifiers() & Qt::ControlModifier)
        m_selection->setCompare(m_document->at(row).id);
    else
        select(row);
}

void LineageView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const int row = rowAt(event->position());
    if (row >= 0 && !m_graph.children(row).isEmpty())
        setCollapsed(row, !m_graph.isCollapsed(row));
}

void LineageView::keyPressEvent(QKeyEvent *event)
{
    const int row = m_selectedRow;
    auto go = [this](int target) {
        if (target >= 0 && m_layout.isVisible(target))
            select(target);
    };
    switch (event->key()) {
    case Qt::Key_F:
        m_autoFit = true;
        fitToView();
        return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_Up:
        if (row >= 0)
            go(m_graph.parent(row));
        return;
    case Qt::Key_Down:
        if (row >= 0 && !m_graph.children(row).isEmpty() && !m_graph.isCollapsed(row))
            go(m_graph.children(row).first());
        return;
    case Qt::Key_Left:
    case Qt::Key_Right: {
        if (row < 0)
            return;
        const int p = m_graph.parent(row);
        const QVector<int> &siblings = p >= 0 ? m_graph.children(p) : m_graph.roots();
        const int k = int(siblings.indexOf(row)) + (event->key() == Qt::Key_Left ? -1 : 1);
        if (k >= 0 && k < siblings.size())
            go(siblings.at(k));
        return;
    }
    case Qt::Key_Space:
        if (row >= 0)
            setCollapsed(row, !m_graph.isCollapsed(row));
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

void LineageView::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    const int row = rowAt(event->pos());
    if (row >= 0 && !m_document->at(row).placeholder) {
        const qint64 id = m_document->at(row).id;
        menu.addAction(tr("Select #%1").arg(id), this, [this, row] { select(row); });
        if (m_selectedRow >= 0 && m_selectedRow != row)
            menu.addAction(tr("Compare with selected #%1").arg(m_document->at(m_selectedRow).id),
                           this, [this, id] { m_selection->setCompare(id); });
        if (!m_graph.children(row).isEmpty()) {
            const bool collapsed = m_graph.isCollapsed(row);
            menu.addAction(
                collapsed ? tr("Expand subtree")
                          : tr("Collapse subtree (%1 nodes)").arg(m_graph.descendantCount(row)),
                this, [this, row, collapsed] { setCollapsed(row, !collapsed); });
        }
        menu.addSeparator();
    }
    menu.addAction(tr("Fit to window"), this, [this] {
        m_autoFit = true;
        fitToView();
    });
    menu.addAction(tr("Expand all"), this, &LineageView::expandAll);
    menu.addAction(tr("Select best"), this, &LineageView::selectBest);
    menu.exec(event->globalPos());
}

bool LineageView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int row = rowAt(help->pos());
        if (row >= 0)
            QToolTip::showText(help->globalPos(), tooltipFor(row), this);
        else
            QToolTip::hideText();
        return true;
    }
    if (event->type() == QEvent::Leave && m_hoverRow >= 0) {
        m_hoverRow = -1;
        update();
    }
    return QWidget::event(event);
}

QString LineageView::tooltipFor(int row) const
{
    const CandidateSummary &c = m_document->at(row);
    if (c.placeholder)
        return tr("<b>#%1</b><br/>parent outside this run").arg(c.id);
    QString origin = operationName(c.operation);
    if (c.parent)
        origin += tr(" of #%1").arg(*c.parent);
    if (c.secondParent)
        origin += tr(" × #%1").arg(*c.secondParent);
    QString text = QStringLiteral("<b>#%1</b> · %2").arg(c.id).arg(origin.toHtmlEscaped());
    if (c.ghost)
        text += tr(" · <i>evicted</i>");
    text += QStringLiteral("<br/><span style=\"color:%1;\">■</span> <b>%2</b>")
                .arg(VerdictStyle::color(c).name(), VerdictStyle::label(c));
    if (c.speedup)
        text += QStringLiteral(" — %1").arg(SpeedupNotes::judgementText(c).toHtmlEscaped());
    text += judgementLines(*m_document, c);
    const QLocale locale;
    text += tr("<br/>tokens %1 (prompt %2 · completion %3 · reasoning %4)")
                .arg(locale.toString(c.totalTokens()), locale.toString(c.promptTokens),
                     locale.toString(c.completionTokens), locale.toString(c.reasoningTokens));
    text += tr("<br/>island %1 · generation %2").arg(c.island).arg(c.generation);
    if (!c.firstFlag.isEmpty())
        text += tr("<br/>flag: %1").arg(c.firstFlag.toHtmlEscaped());
    return text;
}

} // namespace kiln
