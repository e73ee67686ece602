#pragma once

#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QVector>

namespace kiln {

class LineageGraph;

// Places the nodes of a LineageGraph in world coordinates (one unit = one pixel at zoom 1):
// - Tidy: a Reingold–Tilford tree over primary parents (parents centred over their children,
//   subtrees packed as close as their contours allow), roots side by side, depth downwards.
// - Layered: a Sugiyama-style layering for crossover DAGs (a node sits one layer below its
//   deepest parent; barycentre ordering reduces crossings).
// Both run in O(n log n) and keep a grid index for hit testing and culling.
class TreeLayout
{
public:
    enum class Mode
    {
        Tidy,
        Layered
    };

    double xSpacing = 36.0;
    double ySpacing = 84.0;

    void compute(const LineageGraph &graph, Mode mode);
    Mode mode() const { return m_mode; }

    int size() const { return int(m_positions.size()); }
    QPointF position(int node) const { return m_positions.at(node); }
    bool isVisible(int node) const { return !m_hidden.at(node); }
    const QVector<QPointF> &positions() const { return m_positions; }
    QRectF bounds() const { return m_bounds; }
    int depth(int node) const { return m_depth.at(node); }

    // The visible node nearest to point within radius, or -1.
    int nodeAt(QPointF point, double radius) const;
    // Visible nodes whose centres lie in rect.
    QVector<int> nodesIn(const QRectF &rect) const;

private:
    void computeTidy(const LineageGraph &graph);
    void computeLayered(const LineageGraph &graph);
    void buildIndex();
    static quint64 cellKey(int cx, int cy);

    Mode m_mode = Mode::Tidy;
    QVector<QPointF> m_positions;
    QVector<bool> m_hidden;
    QVector<int> m_depth;
    QRectF m_bounds;
    double m_cell = 1.0;
    QHash<quint64, QVector<int>> m_grid;
};

} // namespace kiln
