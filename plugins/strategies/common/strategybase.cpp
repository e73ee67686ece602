#include "strategybase.h"

namespace kiln {

QList<StrategyParameter> StrategyBase::parameters() const
{
    QList<StrategyParameter> all = ownParameters();
    all.append({QStringLiteral("reasoning_length"),
                QStringLiteral("Reasoning budget in tokens copied into every request "
                               "(0: the policy's default)"),
                qint64(0), qint64(0), qint64(1000000)});
    if (offersMemory())
        all.append({QStringLiteral("memory"),
                    QStringLiteral("Lessons of the workspace's optimisation memory carried in each "
                                   "prompt (0: off); a run that reads the memory also records its "
                                   "improvements in it"),
                    0, 0, 20});
    return all;
}

void StrategyBase::configure(const QVariantMap &values, quint64 seed)
{
    const ParameterValues parsed(parameters(), values);
    m_nodes.clear();
    m_random.reseed(seed);
    m_reasoningLength = parsed.integer(QStringLiteral("reasoning_length"));
    m_memoryEntries = offersMemory() ? parsed.count(QStringLiteral("memory")) : 0;
    m_inFlight.clear();
    m_evicted.clear();
    m_evictedSet.clear();
    onConfigure(parsed);
}

QList<ExpansionRequest> StrategyBase::ask(int maxRequests)
{
    if (maxRequests <= 0)
        return {};
    QList<ExpansionRequest> requests = nextRequests(maxRequests);
    if (requests.size() > maxRequests)
        requests.resize(maxRequests); // a budget is never overspent, whatever a subclass does
    m_inFlight = requests;
    return requests;
}

void StrategyBase::tell(const QList<NodeResult> &results)
{
    // Results come in request order; what was asked is authoritative for lineage.
    QList<NodeResult> completed = results;
    for (int i = 0; i < completed.size() && i < m_inFlight.size(); ++i)
        completed[i].request = m_inFlight[i];
    adopt(completed);
}

void StrategyBase::adopt(const QList<NodeResult> &results)
{
    // The round is over even if the engine stopped before every request came back.
    m_inFlight.clear();
    QList<NodeResult> accepted;
    for (const NodeResult &result : results) {
        // No id: nothing was stored (a cancelled job); a known id: a replayed duplicate.
        if (result.id <= 0 || m_nodes.contains(result.id))
            continue;
        m_nodes.add(result, result.request);
        accepted.append(result);
    }
    onResults(accepted);
}

ExpansionRequest StrategyBase::makeRequest(Operation operation, const QList<qint64> &parents,
                                           int island, int generation) const
{
    ExpansionRequest request;
    request.operation = operation;
    request.parents = parents;
    request.island = island;
    request.generation = generation;
    request.reasoningLength = m_reasoningLength;
    request.memoryEntries = m_memoryEntries;
    return request;
}

void StrategyBase::markEvicted(qint64 id)
{
    if (id == 0 || m_evictedSet.contains(id))
        return;
    m_evictedSet.insert(id);
    m_evicted.append(id);
}

} // namespace kiln
