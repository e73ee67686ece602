#pragma once

#include <QList>
#include <QSet>
#include <QVector>

namespace kiln {

class RunDocument;

// Parent / child structure of a run, by document row: the primary parent makes a forest (the
// tidy tree), the second parent of a crossover adds the edges that make it a DAG. Also keeps
// which subtrees the user collapsed.
class LineageGraph
{
public:
    void build(const RunDocument &document);
    // From parent rows directly (-1 for none): for tests and benchmarks.
    void build(const QVector<int> &parent, const QVector<int> &secondParent);
    // Adds the rows first..last that were appended to the document.
    void append(const RunDocument &document, int first, int last);

    int size() const { return int(m_parent.size()); }
    int parent(int node) const { return m_parent.at(node); }
    int secondParent(int node) const { return m_second.at(node); }
    const QVector<int> &children(int node) const { return m_children.at(node); }
    const QVector<int> &roots() const { return m_roots; }
    bool hasCrossover() const { return m_crossovers > 0; }

    // node, its parent, ... up to its root, following primary parents.
    QList<int> pathToRoot(int node) const;
    int descendantCount(int node) const;

    void setCollapsed(int node, bool collapsed);
    bool isCollapsed(int node) const { return m_collapsed.contains(node); }
    void expandAll() { m_collapsed.clear(); }
    const QSet<int> &collapsedNodes() const { return m_collapsed; }
    // True for nodes below a collapsed node.
    QVector<bool> hiddenMask() const;
    bool isHidden(int node) const;

private:
    void link(const RunDocument &document, int row);

    QVector<int> m_parent;
    QVector<int> m_second;
    QVector<QVector<int>> m_children;
    QVector<int> m_roots;
    QSet<int> m_collapsed;
    int m_crossovers = 0;
};

} // namespace kiln
