#include "nodetable.h"

#include "fitness.h"

#include <algorithm>

namespace kiln {

const SearchNode &NodeTable::add(const NodeResult &result, const ExpansionRequest &request)
{
    const auto existing = m_index.constFind(result.id);
    if (existing != m_index.constEnd())
        return m_nodes[size_t(*existing)];

    SearchNode node;
    node.id = result.id;
    node.operation = request.operation;
    node.parents = request.parents;
    node.island = request.island;
    node.generation = request.generation;
    node.reasoningLength = request.reasoningLength;
    node.generated = result.generated;
    // The verdict decides correctness: a result claiming speed without a pass is a failure.
    node.correct = result.generated && result.verdict == Verdict::Pass;
    node.verdict = result.verdict;
    node.speedup = node.correct ? result.speedup : 0.0;
    node.rooflineFraction = result.rooflineFraction;
    node.reasoningTokens = result.reasoningTokens;
    node.descriptors = result.descriptors;
    node.arrival = size();

    m_index.insert(node.id, size());
    m_nodes.push_back(node);
    for (qint64 parent : std::as_const(node.parents)) {
        const auto it = m_index.constFind(parent);
        if (it != m_index.constEnd() && parent != node.id)
            m_nodes[size_t(*it)].children.append(node.id);
    }
    if (m_best == 0 || rankedHigher(m_nodes.back(), at(m_best)))
        m_best = node.id;
    return m_nodes.back();
}

void NodeTable::clear()
{
    m_nodes.clear();
    m_index.clear();
    m_best = 0;
}

const SearchNode *NodeTable::find(qint64 id) const
{
    const auto it = m_index.constFind(id);
    return it == m_index.constEnd() ? nullptr : &m_nodes[size_t(*it)];
}

const SearchNode &NodeTable::at(qint64 id) const
{
    return m_nodes[size_t(m_index.value(id))];
}

QList<qint64> NodeTable::ids() const
{
    QList<qint64> result;
    result.reserve(size());
    for (const SearchNode &node : m_nodes)
        result.append(node.id);
    return result;
}

bool NodeTable::higher(qint64 a, qint64 b) const
{
    const SearchNode *na = find(a);
    const SearchNode *nb = find(b);
    if (!na || !nb)
        return na != nullptr;
    return rankedHigher(*na, *nb);
}

void NodeTable::sortByRank(QList<qint64> &ids) const
{
    std::stable_sort(ids.begin(), ids.end(), [this](qint64 a, qint64 b) { return higher(a, b); });
}

} // namespace kiln
