#pragma once

#include "searchnode.h"
#include "strategy/strategy.h"

#include <QHash>
#include <vector>

namespace kiln {

// Every candidate a strategy has been told about, with parent/child links. Nodes are never
// removed: an evicted node is still a parent in the lineage.
class NodeTable
{
public:
    // Records a result produced by `request`; a repeated id is ignored. Returns the node.
    const SearchNode &add(const NodeResult &result, const ExpansionRequest &request);
    void clear();

    bool contains(qint64 id) const { return m_index.contains(id); }
    const SearchNode *find(qint64 id) const;
    const SearchNode &at(qint64 id) const; // id must be known
    int size() const { return int(m_nodes.size()); }
    QList<qint64> ids() const; // arrival order
    // The best node by rankedHigher (0 when empty).
    qint64 bestId() const { return m_best; }
    // Sorts ids best first (unknown ids last).
    void sortByRank(QList<qint64> &ids) const;
    bool higher(qint64 a, qint64 b) const;

private:
    std::vector<SearchNode> m_nodes;
    QHash<qint64, int> m_index;
    qint64 m_best = 0;
};

} // namespace kiln
