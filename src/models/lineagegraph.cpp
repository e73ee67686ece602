#include "lineagegraph.h"

#include "rundocument.h"

namespace kiln {

void LineageGraph::build(const RunDocument &document)
{
    m_parent.clear();
    m_second.clear();
    m_children.clear();
    m_roots.clear();
    m_collapsed.clear();
    m_crossovers = 0;
    const int n = document.count();
    m_parent.fill(-1, n);
    m_second.fill(-1, n);
    m_children.resize(n);
    for (int row = 0; row < n; ++row)
        link(document, row);
}

void LineageGraph::build(const QVector<int> &parent, const QVector<int> &secondParent)
{
    m_parent = parent;
    m_second = secondParent;
    m_second.resize(parent.size(), -1);
    m_children.clear();
    m_children.resize(parent.size());
    m_roots.clear();
    m_collapsed.clear();
    m_crossovers = 0;
    for (int row = 0; row < parent.size(); ++row) {
        if (m_second[row] >= 0)
            ++m_crossovers;
        if (m_parent[row] >= 0)
            m_children[m_parent[row]].append(row);
        else
            m_roots.append(row);
    }
}

void LineageGraph::append(const RunDocument &document, int first, int last)
{
    const int n = last + 1;
    m_parent.resize(n, -1);
    m_second.resize(n, -1);
    m_children.resize(n);
    // A placeholder parent can arrive after its child: relink the rows it adopts.
    for (int row = first; row <= last; ++row)
        link(document, row);
    for (int row = 0; row < first; ++row) {
        const CandidateSummary &c = document.at(row);
        if (m_parent[row] < 0 && c.parent && document.rowOf(*c.parent) >= first) {
            m_roots.removeOne(row);
            link(document, row);
        }
    }
}

void LineageGraph::link(const RunDocument &document, int row)
{
    const CandidateSummary &c = document.at(row);
    const int p = c.parent ? document.rowOf(*c.parent) : -1;
    const int q = c.secondParent ? document.rowOf(*c.secondParent) : -1;
    m_parent[row] = p;
    if (m_second[row] < 0 && q >= 0)
        ++m_crossovers;
    m_second[row] = q;
    if (p >= 0 && p < m_children.size())
        m_children[p].append(row);
    else
        m_roots.append(row);
}

QList<int> LineageGraph::pathToRoot(int node) const
{
    QList<int> path;
    // The bound guards against a malformed cycle in a foreign database.
    while (node >= 0 && path.size() <= size()) {
        path.append(node);
        node = m_parent.at(node);
    }
    return path;
}

int LineageGraph::descendantCount(int node) const
{
    int count = 0;
    QVector<int> stack = m_children.at(node);
    while (!stack.isEmpty()) {
        const int n = stack.takeLast();
        ++count;
        stack += m_children.at(n);
    }
    return count;
}

void LineageGraph::setCollapsed(int node, bool collapsed)
{
    if (collapsed && !m_children.at(node).isEmpty())
        m_collapsed.insert(node);
    else
        m_collapsed.remove(node);
}

QVector<bool> LineageGraph::hiddenMask() const
{
    QVector<bool> hidden(size(), false);
    for (int node : m_collapsed) {
        QVector<int> stack = m_children.at(node);
        while (!stack.isEmpty()) {
            const int n = stack.takeLast();
            if (hidden[n])
                continue;
            hidden[n] = true;
            stack += m_children.at(n);
        }
    }
    return hidden;
}

bool LineageGraph::isHidden(int node) const
{
    int p = m_parent.at(node);
    int steps = 0;
    while (p >= 0 && steps++ <= size()) {
        if (m_collapsed.contains(p))
            return true;
        p = m_parent.at(p);
    }
    return false;
}

} // namespace kiln
