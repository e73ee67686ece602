#include "refinestrategy.h"

namespace kiln {

QList<StrategyParameter> RefineStrategy::ownParameters() const
{
    StrategyParameter follow{QStringLiteral("follow"),
                             QStringLiteral("Which candidate a turn refines: the trajectory's "
                                            "latest, or its best so far"),
                             QStringLiteral("latest"),
                             {},
                             {},
                             {QStringLiteral("latest"), QStringLiteral("best")}};
    return {
        {QStringLiteral("width"), QStringLiteral("Trajectories run side by side (W)"), 4, 1, 10000},
        {QStringLiteral("turns"), QStringLiteral("Turns per trajectory (T), the first a sample"), 8,
         1, 100000},
        follow};
}

void RefineStrategy::onConfigure(const ParameterValues &values)
{
    m_width = values.count(QStringLiteral("width"));
    m_turns = values.count(QStringLiteral("turns"));
    m_followBest = values.string(QStringLiteral("follow")) == QLatin1String("best");
    m_trajectories = QList<QList<qint64>>(m_width);
    m_queue.clear();
    startRound();
}

void RefineStrategy::startRound()
{
    for (int t = 0; t < m_trajectories.size(); ++t) {
        if (m_trajectories[t].size() < m_turns)
            m_queue.append(t);
    }
}

qint64 RefineStrategy::followed(int t) const
{
    const QList<qint64> &ids = m_trajectories[t];
    if (ids.isEmpty())
        return 0;
    if (!m_followBest)
        return ids.last();
    qint64 best = ids.first();
    for (qint64 id : ids) {
        if (nodes().higher(id, best))
            best = id;
    }
    return best;
}

QList<ExpansionRequest> RefineStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && !m_queue.isEmpty()) {
        const int t = m_queue.takeFirst();
        const int turn = int(m_trajectories[t].size());
        const qint64 parent = followed(t);
        const SearchNode *node = nodes().find(parent);
        // A turn whose candidate produced no code restarts from a fresh sample.
        if (node && node->expandable())
            requests.append(makeRequest(Operation::Refine, {parent}, t, turn));
        else
            requests.append(makeRequest(Operation::Sample, {}, t, turn));
    }
    return requests;
}

void RefineStrategy::onResults(const QList<NodeResult> &results)
{
    for (const NodeResult &result : results) {
        const int t = result.request.island;
        if (t >= 0 && t < m_trajectories.size() && m_trajectories[t].size() < m_turns)
            m_trajectories[t].append(result.id);
    }
    if (m_queue.isEmpty())
        startRound();
}

} // namespace kiln
