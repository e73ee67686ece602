#pragma once

#include "models/lineagegraph.h"
#include "models/treelayout.h"

#include <QElapsedTimer>
#include <QImage>
#include <QTimer>
#include <QVector>
#include <QWidget>
#include <optional>

namespace kiln {

class CandidateHighlight;
class CandidateSelection;
class RunDocument;

// The search tree / lineage of a run, painted directly (no scene graph): a grid index culls what
// is off screen, and level of detail drops outlines, badges and labels when nodes are a few pixels
// wide, so 10,000 nodes pan and zoom smoothly. Colour = verdict, size = speedup,
// shape = operation, badge = island; the path from the root to the best passing candidate is
// drawn in gold; evicted ("ghost") nodes are hollow and dashed; a duplicate source, whose
// judgement is another's reused, is dotted with an "=" mark.
class LineageView : public QWidget
{
    Q_OBJECT

public:
    enum class LayoutChoice
    {
        Automatic, // layered when the run has crossovers, tidy otherwise
        Tidy,
        Layered
    };

    LineageView(RunDocument *document, CandidateSelection *selection, QWidget *parent = nullptr);
    // Highlighted candidates get a ring of their own (a diagnosis finding's evidence).
    void setHighlight(CandidateHighlight *highlight);

    void setLayoutChoice(LayoutChoice choice);
    LayoutChoice layoutChoice() const { return m_choice; }
    const TreeLayout &treeLayout() const { return m_layout; }
    const LineageGraph &graph() const { return m_graph; }

    double zoom() const { return m_scale; }
    QPointF mapToWorld(QPointF screen) const;
    QPointF mapFromWorld(QPointF world) const;
    // Screen position of a candidate's node, for tests; nullopt when it is hidden or unknown.
    std::optional<QPointF> nodeScreenPosition(qint64 candidateId) const;
    int rowAt(QPointF screen) const;
    bool isOnBestPath(int row) const
    {
        return row >= 0 && row < m_onBestPath.size() && m_onBestPath[row];
    }

    bool showLegend() const { return m_showLegend; }
    int paintCount() const { return m_paintCount; }
    double lastPaintMilliseconds() const { return m_lastPaintMs; }

public slots:
    void fitToView();
    void zoomIn();
    void zoomOut();
    void zoomBy(double factor, QPointF anchor);
    void panBy(QPointF delta);
    // Selects the candidate and centres it; false when the run has no such candidate.
    bool findCandidate(qint64 candidateId);
    void setCollapsed(int row, bool collapsed);
    void expandAll();
    void setShowLegend(bool show);
    void selectBest();

signals:
    void zoomChanged(double zoom);
    void layoutModeChanged(TreeLayout::Mode mode);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    bool event(QEvent *event) override;

private:
    void rebuild();
    void relayout(bool keepView);
    void onAppended(int first, int last);
    void onCurrentChanged(qint64 candidateId);
    void updateBestPath();
    void ensureVisible(int row);
    void select(int row);
    double nodeRadius(int row) const;
    QString tooltipFor(int row) const;
    struct EdgeBatches;
    struct NodeDecor;
    void paintScene(QPainter &painter, const QRectF &target);
    EdgeBatches edgesIn(const QRectF &world, bool detailed) const;
    void paintEdges(QPainter &painter, const EdgeBatches &edges, bool detailed);
    void paintCoarseNodes(QPainter &painter, const QVector<int> &visible);
    void paintDetailedNodes(QPainter &painter, const QVector<int> &visible);
    void paintDetailedNode(QPainter &painter, int row, const NodeDecor &decor);
    void paintIslandBadge(QPainter &painter, int island, double r, QPointF center,
                          const NodeDecor &decor);
    void paintMarks(QPainter &painter);
    void paintHighlight(QPainter &painter, bool detailed, double nodeScale);
    void invalidateCache();
    void paintLegend(QPainter &painter);
    void paintOverlay(QPainter &painter);

    RunDocument *m_document;
    CandidateSelection *m_selection;
    CandidateHighlight *m_highlight = nullptr;
    LineageGraph m_graph;
    TreeLayout m_layout;
    LayoutChoice m_choice = LayoutChoice::Automatic;
    QVector<bool> m_onBestPath;
    int m_selectedRow = -1;
    int m_compareRow = -1;
    int m_hoverRow = -1;
    int m_islandCount = 1;

    double m_scale = 1.0;
    QPointF m_offset; // screen = world * scale + offset
    bool m_autoFit = true;
    bool m_showLegend = true;

    QPoint m_pressPos;
    QPointF m_lastDragPos;
    bool m_dragging = false;
    QTimer m_relayoutTimer; // coalesces live growth into one layout per burst
    QTimer m_verdictTimer;  // coalesces live verdicts into one redraw per 100 ms

    QImage m_cache; // the scene, rendered with a margin for panning
    QPointF m_cacheOffset;
    double m_cacheScale = 0.0;
    QPoint m_cacheMargin;
    QSize m_cacheSize;
    bool m_cacheValid = false;

    int m_paintCount = 0;
    double m_lastPaintMs = 0.0;
};

} // namespace kiln
