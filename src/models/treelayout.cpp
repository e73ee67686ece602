#include "treelayout.h"

#include "lineagegraph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kiln {

namespace {

// The horizontal extent of a subtree, one entry per depth level, stored deepest level first so
// a parent's level is a push_back. Stored values plus shift are offsets from the subtree root.
struct Contour
{
    std::vector<double> left;
    std::vector<double> right;
    double shift = 0.0;
    int levels() const { return int(left.size()); }
};

// ---- tidy ---------------------------------------------------------------------------------------

// A node's children in the tidy tree; graph.size() stands for a virtual root above the roots.
const QVector<int> &tidyChildren(const LineageGraph &graph, const QVector<bool> &hidden, int node)
{
    static const QVector<int> none;
    if (node == graph.size())
        return graph.roots();
    if (graph.isCollapsed(node) || hidden[node])
        return none;
    return graph.children(node);
}

// How far right of acc's root b's root must sit so that b stays xSpacing clear of acc on every
// level both reach.
double separation(const Contour &acc, const Contour &b, double xSpacing)
{
    const int common = std::min(acc.levels(), b.levels());
    double d = -std::numeric_limits<double>::infinity();
    for (int l = 0; l < common; ++l) {
        const int ia = acc.levels() - 1 - l;
        const int ib = b.levels() - 1 - l;
        d = std::max(d, acc.right[ia] + acc.shift - (b.left[ib] + b.shift) + xSpacing);
    }
    return d;
}

// Joins b, already shifted into place right of acc, into acc.
void mergeContour(Contour &acc, Contour b)
{
    const int common = std::min(acc.levels(), b.levels());
    // Merge the shorter contour into the longer one: O(shorter) per merge.
    if (b.levels() > acc.levels()) {
        for (int l = 0; l < common; ++l) {
            const int ia = acc.levels() - 1 - l;
            const int ib = b.levels() - 1 - l;
            b.left[ib] = acc.left[ia] + acc.shift - b.shift;
        }
        acc = std::move(b);
    } else {
        for (int l = 0; l < common; ++l) {
            const int ia = acc.levels() - 1 - l;
            const int ib = b.levels() - 1 - l;
            acc.right[ia] = b.right[ib] + b.shift - acc.shift;
        }
    }
}

// Packs the children's subtrees side by side as close as their contours allow, centred under
// their parent: writes each child's offset from the parent to rel and returns the contour of them
// all, relative to the parent. Takes the children's contours out of contours.
Contour packChildren(const QVector<int> &children, std::vector<Contour> &contours,
                     std::vector<double> &rel, double xSpacing)
{
    Contour acc = std::move(contours[children.first()]);
    std::vector<double> offset(children.size(), 0.0);
    for (int k = 1; k < children.size(); ++k) {
        Contour b = std::move(contours[children.at(k)]);
        offset[k] = separation(acc, b, xSpacing);
        b.shift += offset[k];
        mergeContour(acc, std::move(b));
    }
    const double mid = offset.back() / 2.0;
    for (int k = 0; k < children.size(); ++k)
        rel[children.at(k)] = offset[k] - mid;
    acc.shift -= mid;
    return acc;
}

// Each node's x offset from its tidy parent; roots' offsets are from a virtual root at x = 0.
std::vector<double> tidyOffsets(const LineageGraph &graph, const QVector<bool> &hidden,
                                double xSpacing)
{
    const int n = graph.size();
    // Post-order over the forest below a virtual root (index n), without recursion: refine
    // chains can be thousands deep.
    std::vector<double> rel(n + 1, 0.0);
    std::vector<Contour> contours(n + 1);
    std::vector<std::pair<int, int>> stack; // node, next child position
    stack.push_back({n, 0});
    while (!stack.empty()) {
        auto &[node, next] = stack.back();
        const QVector<int> &children = tidyChildren(graph, hidden, node);
        if (next < children.size()) {
            const int child = children.at(next++);
            stack.push_back({child, 0});
            continue;
        }
        Contour acc;
        if (!children.isEmpty())
            acc = packChildren(children, contours, rel, xSpacing);
        acc.left.push_back(-acc.shift);
        acc.right.push_back(-acc.shift);
        contours[node] = std::move(acc);
        stack.pop_back();
    }
    return rel;
}

// ---- layered ------------------------------------------------------------------------------------

// Each node's layer: one below its deepest parent (memoised, iterative).
std::vector<int> layersOf(const LineageGraph &graph)
{
    const int n = graph.size();
    std::vector<int> layer(n, -1);
    for (int start = 0; start < n; ++start) {
        if (layer[start] >= 0)
            continue;
        std::vector<int> stack{start};
        while (!stack.empty()) {
            const int node = stack.back();
            const int p = graph.parent(node);
            const int q = graph.secondParent(node);
            bool ready = true;
            for (int par : {p, q}) {
                if (par >= 0 && layer[par] < 0) {
                    stack.push_back(par);
                    ready = false;
                }
            }
            if (stack.size() > size_t(n) + 1) { // a cycle in a malformed database
                layer[node] = 0;
                stack.pop_back();
                continue;
            }
            if (!ready)
                continue;
            int l = 0;
            for (int par : {p, q}) {
                if (par >= 0)
                    l = std::max(l, layer[par] + 1);
            }
            layer[node] = l;
            stack.pop_back();
        }
    }
    return layer;
}

// Each node's position in a pre-order walk of the primary tree.
std::vector<int> primaryPreorder(const LineageGraph &graph)
{
    std::vector<int> preorder(graph.size(), 0);
    int counter = 0;
    std::vector<int> todo(graph.roots().crbegin(), graph.roots().crend());
    while (!todo.empty()) {
        const int node = todo.back();
        todo.pop_back();
        preorder[node] = counter++;
        const QVector<int> &children = graph.children(node);
        for (auto it = children.crbegin(); it != children.crend(); ++it)
            todo.push_back(*it);
    }
    return preorder;
}

// The visible nodes of each layer, in pre-order of the primary tree, which is already tidy-ish.
std::vector<std::vector<int>> visibleLayers(const std::vector<int> &layer,
                                            const std::vector<int> &preorder,
                                            const QVector<bool> &hidden)
{
    const int n = int(layer.size());
    int layerCount = 0;
    for (int i = 0; i < n; ++i) {
        if (!hidden[i])
            layerCount = std::max(layerCount, layer[i] + 1);
    }
    std::vector<std::vector<int>> layers(layerCount);
    for (int i = 0; i < n; ++i) {
        if (!hidden[i])
            layers[layer[i]].push_back(i);
    }
    for (auto &nodes : layers)
        std::sort(nodes.begin(), nodes.end(),
                  [&](int a, int b) { return preorder[a] < preorder[b]; });
    return layers;
}

// Spaces a layer's nodes xSpacing apart, in their order, centred on 0.
void placeEvenly(const std::vector<int> &nodes, std::vector<double> &x, double xSpacing)
{
    const double half = (double(nodes.size()) - 1.0) / 2.0;
    for (size_t i = 0; i < nodes.size(); ++i)
        x[nodes[i]] = (double(i) - half) * xSpacing;
}

// The mean x of a node's visible parents, or its own x when it has none.
double meanParentX(const LineageGraph &graph, const QVector<bool> &hidden,
                   const std::vector<double> &x, int node)
{
    double sum = 0.0;
    int count = 0;
    for (int par : {graph.parent(node), graph.secondParent(node)}) {
        if (par >= 0 && !hidden[par]) {
            sum += x[par];
            ++count;
        }
    }
    return count ? sum / count : x[node];
}

// The mean x of a node's children, or its own x when it has none.
double meanChildX(const std::vector<int> &children, const std::vector<double> &x, int node)
{
    double sum = 0.0;
    int count = 0;
    for (int child : children) {
        sum += x[child];
        ++count;
    }
    return count ? sum / count : x[node];
}

// Children of each node over both kinds of edge, for the upward sweeps.
std::vector<std::vector<int>> visibleChildren(const LineageGraph &graph,
                                              const QVector<bool> &hidden)
{
    std::vector<std::vector<int>> down(graph.size());
    for (int i = 0; i < graph.size(); ++i) {
        if (hidden[i])
            continue;
        for (int par : {graph.parent(i), graph.secondParent(i)}) {
            if (par >= 0 && !hidden[par])
                down[par].push_back(i);
        }
    }
    return down;
}

// Barycentre ordering: twice, sweeps down reordering each layer by its parents' mean x, then up
// by its children's, to reduce crossings.
void orderByBarycentre(const LineageGraph &graph, const QVector<bool> &hidden,
                       std::vector<std::vector<int>> &layers, std::vector<double> &x,
                       double xSpacing)
{
    const std::vector<std::vector<int>> down = visibleChildren(graph, hidden);
    std::vector<double> key(graph.size(), 0.0);
    auto sweep = [&](size_t l, bool fromParents) {
        auto &nodes = layers[l];
        for (int node : nodes) {
            key[node] =
                fromParents ? meanParentX(graph, hidden, x, node) : meanChildX(down[node], x, node);
        }
        std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key[a] < key[b]; });
        placeEvenly(nodes, x, xSpacing);
    };
    for (int iteration = 0; iteration < 2; ++iteration) {
        for (size_t l = 1; l < layers.size(); ++l)
            sweep(l, true);
        for (size_t l = layers.size(); l-- > 1;)
            sweep(l - 1, false);
    }
}

// Pull each node towards its parents, keeping order and spacing, then recentre the layer.
void pullTowardsParents(const LineageGraph &graph, const QVector<bool> &hidden,
                        const std::vector<std::vector<int>> &layers, std::vector<double> &x,
                        double xSpacing)
{
    for (size_t l = 1; l < layers.size(); ++l) {
        const auto &nodes = layers[l];
        if (nodes.empty())
            continue;
        double wantSum = 0.0;
        double prev = -std::numeric_limits<double>::infinity();
        for (int node : nodes) {
            const double want = meanParentX(graph, hidden, x, node);
            wantSum += want;
            x[node] = std::max(want, prev + xSpacing);
            prev = x[node];
        }
        double haveSum = 0.0;
        for (int node : nodes)
            haveSum += x[node];
        const double correction = (wantSum - haveSum) / double(nodes.size());
        for (int node : nodes)
            x[node] += correction;
    }
}

} // namespace

void TreeLayout::compute(const LineageGraph &graph, Mode mode)
{
    m_mode = mode;
    const int n = graph.size();
    m_positions.fill(QPointF(), n);
    m_depth.fill(0, n);
    m_hidden = graph.hiddenMask();
    if (mode == Mode::Tidy)
        computeTidy(graph);
    else
        computeLayered(graph);
    buildIndex();
}

void TreeLayout::computeTidy(const LineageGraph &graph)
{
    const std::vector<double> rel = tidyOffsets(graph, m_hidden, xSpacing);

    // Pre-order: absolute positions and depths.
    std::vector<std::pair<int, double>> todo;
    for (int root : graph.roots())
        todo.push_back({root, rel[root]});
    std::vector<int> depthOf(graph.size(), 0);
    while (!todo.empty()) {
        const auto [node, x] = todo.back();
        todo.pop_back();
        m_positions[node] = QPointF(x, depthOf[node] * ySpacing);
        m_depth[node] = depthOf[node];
        for (int child : tidyChildren(graph, m_hidden, node)) {
            depthOf[child] = depthOf[node] + 1;
            todo.push_back({child, x + rel[child]});
        }
    }
}

void TreeLayout::computeLayered(const LineageGraph &graph)
{
    const std::vector<int> layer = layersOf(graph);
    std::vector<std::vector<int>> layers = visibleLayers(layer, primaryPreorder(graph), m_hidden);
    std::vector<double> x(graph.size(), 0.0);
    for (const auto &nodes : layers)
        placeEvenly(nodes, x, xSpacing);
    orderByBarycentre(graph, m_hidden, layers, x, xSpacing);
    pullTowardsParents(graph, m_hidden, layers, x, xSpacing);
    for (int i = 0; i < graph.size(); ++i) {
        m_positions[i] = QPointF(x[i], layer[i] * ySpacing);
        m_depth[i] = layer[i];
    }
}

quint64 TreeLayout::cellKey(int cx, int cy)
{
    return (quint64(quint32(cx)) << 32) | quint32(cy);
}

void TreeLayout::buildIndex()
{
    m_grid.clear();
    m_bounds = QRectF();
    bool first = true;
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    for (int i = 0; i < m_positions.size(); ++i) {
        if (m_hidden[i])
            continue;
        const QPointF p = m_positions[i];
        if (first) {
            minX = maxX = p.x();
            minY = maxY = p.y();
            first = false;
        }
        minX = std::min(minX, p.x());
        maxX = std::max(maxX, p.x());
        minY = std::min(minY, p.y());
        maxY = std::max(maxY, p.y());
    }
    if (first)
        return;
    m_bounds = QRectF(QPointF(minX, minY), QPointF(maxX, maxY));
    m_cell = 4.0 * std::max(xSpacing, ySpacing);
    for (int i = 0; i < m_positions.size(); ++i) {
        if (m_hidden[i])
            continue;
        const QPointF p = m_positions[i];
        m_grid[cellKey(int(std::floor(p.x() / m_cell)), int(std::floor(p.y() / m_cell)))].append(i);
    }
}

QVector<int> TreeLayout::nodesIn(const QRectF &rect) const
{
    QVector<int> result;
    if (m_grid.isEmpty())
        return result;
    const QRectF r = rect.normalized();
    const int x0 = int(std::floor(r.left() / m_cell));
    const int x1 = int(std::floor(r.right() / m_cell));
    const int y0 = int(std::floor(r.top() / m_cell));
    const int y1 = int(std::floor(r.bottom() / m_cell));
    const double cells = (double(x1) - x0 + 1) * (double(y1) - y0 + 1);
    if (cells > double(m_grid.size())) {
        for (auto it = m_grid.cbegin(); it != m_grid.cend(); ++it) {
            for (int node : it.value()) {
                if (r.contains(m_positions[node]))
                    result.append(node);
            }
        }
        return result;
    }
    for (int cx = x0; cx <= x1; ++cx) {
        for (int cy = y0; cy <= y1; ++cy) {
            const auto it = m_grid.constFind(cellKey(cx, cy));
            if (it == m_grid.cend())
                continue;
            for (int node : it.value()) {
                if (r.contains(m_positions[node]))
                    result.append(node);
            }
        }
    }
    return result;
}

int TreeLayout::nodeAt(QPointF point, double radius) const
{
    const QVector<int> near =
        nodesIn(QRectF(point.x() - radius, point.y() - radius, 2 * radius, 2 * radius));
    int best = -1;
    double bestDistance = radius * radius;
    for (int node : near) {
        const QPointF d = m_positions[node] - point;
        const double distance = d.x() * d.x() + d.y() * d.y();
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = node;
        }
    }
    return best;
}

} // namespace kiln
