#include "greedystrategy.h"

namespace kiln {

QList<StrategyParameter> GreedyStrategy::ownParameters() const
{
    return {{QStringLiteral("initial"), QStringLiteral("Independent samples before expanding"), 4,
             0, 1000000},
            {QStringLiteral("max_children"),
             QStringLiteral("Refinements of one node before the next best is expanded"), 3, 1,
             10000}};
}

void GreedyStrategy::onConfigure(const ParameterValues &values)
{
    m_initial = values.count(QStringLiteral("initial"));
    m_maxChildren = values.count(QStringLiteral("max_children"));
    m_samples = 0;
}

QList<ExpansionRequest> GreedyStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && m_samples < m_initial) {
        requests.append(makeRequest(Operation::Sample));
        ++m_samples;
    }
    const bool initialThisRound = !requests.isEmpty();
    if (requests.size() >= maxRequests)
        return requests;

    QList<qint64> ranked = nodes().ids();
    nodes().sortByRank(ranked);
    QHash<qint64, int> asked;
    int next = 0; // ranked is best first and a node only fills up, so the cursor never rewinds
    while (requests.size() < maxRequests) {
        while (next < ranked.size()) {
            const SearchNode &node = nodes().at(ranked[next]);
            if (node.expandable() && node.children.size() + asked.value(node.id) < m_maxChildren)
                break;
            ++next;
        }
        if (next == ranked.size()) {
            // Nothing to expand: wait for the initial samples of this round, or open new roots.
            if (initialThisRound)
                break;
            requests.append(makeRequest(Operation::Sample));
            ++m_samples;
            continue;
        }
        const qint64 id = ranked[next];
        ++asked[id];
        requests.append(makeRequest(Operation::Refine, {id}, 0, nodes().at(id).generation + 1));
    }
    return requests;
}

} // namespace kiln
