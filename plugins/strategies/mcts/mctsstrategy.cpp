#include "mctsstrategy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

QList<StrategyParameter> MctsStrategy::ownParameters() const
{
    StrategyParameter expansion{QStringLiteral("expansion"),
                                QStringLiteral("Operation that expands a candidate"),
                                QStringLiteral("refine"),
                                {},
                                {},
                                {QStringLiteral("refine"), QStringLiteral("mutate")}};
    return {{QStringLiteral("exploration"), QStringLiteral("UCT exploration constant c"),
             1.41421356, 0.0, 100.0},
            {QStringLiteral("max_children"), QStringLiteral("Children per candidate"), 3, 1, 10000},
            {QStringLiteral("root_children"),
             QStringLiteral("Independent samples under the virtual root"), 8, 1, 1000000},
            {QStringLiteral("widening"),
             QStringLiteral("Progressive widening exponent a: a node may have floor(N^a) "
                            "children, at most max_children (0: off)"),
             0.0, 0.0, 1.0},
            {QStringLiteral("value_scale"),
             QStringLiteral("Speedup that maps to value 0.5 in v = s / (s + value_scale)"), 1.0,
             0.001, 1000.0},
            {QStringLiteral("virtual_loss"),
             QStringLiteral("Zero-value visits added along a path selected in the current round"),
             1, 0, 1000},
            expansion};
}

void MctsStrategy::onConfigure(const ParameterValues &values)
{
    m_exploration = values.real(QStringLiteral("exploration"));
    m_maxChildren = values.count(QStringLiteral("max_children"));
    m_rootChildren = values.count(QStringLiteral("root_children"));
    m_widening = values.real(QStringLiteral("widening"));
    m_valueScale = values.real(QStringLiteral("value_scale"));
    m_virtualLoss = values.count(QStringLiteral("virtual_loss"));
    m_expansion = values.string(QStringLiteral("expansion")) == QLatin1String("mutate")
                      ? Operation::Mutate
                      : Operation::Refine;
    m_stats.clear();
    m_children.clear();
    m_treeParent.clear();
    m_stats.insert(0, Stat{});
}

double MctsStrategy::uct(double valueSum, double visits, double parentVisits, double exploration)
{
    if (visits <= 0.0)
        return std::numeric_limits<double>::infinity();
    return valueSum / visits +
           exploration * std::sqrt(std::log(std::max(parentVisits, 1.0)) / visits);
}

double MctsStrategy::value(double speedup, bool correct) const
{
    if (!correct || speedup <= 0.0)
        return 0.0;
    return speedup / (speedup + m_valueScale);
}

int MctsStrategy::childLimit(qint64 id) const
{
    if (id == 0)
        return m_rootExpansion ? m_rootChildren : 0;
    if (m_widening <= 0.0)
        return m_maxChildren;
    const double n = std::max(1.0, effectiveVisits(id));
    return std::min(m_maxChildren, std::max(1, int(std::floor(std::pow(n, m_widening)))));
}

bool MctsStrategy::canExpand(qint64 id) const
{
    if (id != 0 && !nodes().at(id).expandable())
        return false;
    const Stat s = m_stats.value(id);
    return m_children.value(id).size() + s.pendingChildren < childLimit(id);
}

bool MctsStrategy::exhausted(qint64 id) const
{
    if (canExpand(id))
        return false;
    const QList<qint64> children = m_children.value(id);
    for (qint64 child : children) {
        if (!exhausted(child))
            return false;
    }
    return true;
}

double MctsStrategy::effectiveVisits(qint64 id) const
{
    const Stat s = m_stats.value(id);
    return double(s.visits) + double(s.virtualVisits);
}

qint64 MctsStrategy::selectLeaf(QList<qint64> &path) const
{
    qint64 current = 0;
    path = {0};
    if (exhausted(0))
        return -1;
    while (!canExpand(current)) {
        const double parentVisits = effectiveVisits(current);
        qint64 best = -1;
        double bestScore = -std::numeric_limits<double>::infinity();
        const QList<qint64> children = m_children.value(current);
        for (qint64 child : children) {
            if (exhausted(child))
                continue;
            const double score = uct(m_stats.value(child).valueSum, effectiveVisits(child),
                                     parentVisits, m_exploration);
            if (score > bestScore) {
                bestScore = score;
                best = child;
            }
        }
        if (best < 0)
            return -1; // unreachable: a non-exhausted node that cannot expand has such a child
        current = best;
        path.append(current);
    }
    return current;
}

QList<ExpansionRequest> MctsStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    bool fallback = false;
    while (requests.size() < maxRequests) {
        QList<qint64> path;
        const qint64 leaf = selectLeaf(path);
        if (leaf < 0) {
            // Full because of this round's own requests: wait for their results.
            if (!requests.isEmpty() && !fallback)
                break;
            // The whole tree is full or dead: fresh samples are the only way on.
            fallback = true;
            requests.append(makeRequest(Operation::Sample));
            ++m_stats[0].pendingChildren;
            continue;
        }
        for (qint64 id : std::as_const(path))
            m_stats[id].virtualVisits += m_virtualLoss;
        ++m_stats[leaf].pendingChildren;
        if (leaf == 0)
            requests.append(makeRequest(Operation::Sample));
        else
            requests.append(makeRequest(m_expansion, {leaf}, 0, nodes().at(leaf).generation + 1));
    }
    return requests;
}

void MctsStrategy::onResults(const QList<NodeResult> &results)
{
    for (auto it = m_stats.begin(); it != m_stats.end(); ++it) {
        it->virtualVisits = 0;
        it->pendingChildren = 0;
    }
    for (const NodeResult &result : results) {
        if (m_stats.contains(result.id) || result.id == 0)
            continue;
        qint64 parent = result.request.parents.value(0, 0);
        if (!m_stats.contains(parent))
            parent = 0;
        m_treeParent.insert(result.id, parent);
        m_children[parent].append(result.id);
        const SearchNode &node = nodes().at(result.id);
        const double v = value(node.speedup, node.correct);
        Stat &own = m_stats[result.id];
        own.visits = 1;
        own.valueSum = v;
        for (qint64 up = parent;; up = m_treeParent.value(up)) {
            Stat &s = m_stats[up];
            ++s.visits;
            s.valueSum += v;
            if (up == 0)
                break;
        }
    }
}

} // namespace kiln
