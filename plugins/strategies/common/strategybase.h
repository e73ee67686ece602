#pragma once

#include "nodetable.h"
#include "parametervalues.h"
#include "strategy/strategy.h"
#include "strategyrandom.h"

#include <QSet>

namespace kiln {

// What every built-in strategy shares: the reasoning_length parameter, parameter parsing, the
// seeded random source, the node table fed by tell(), in-flight bookkeeping and the evicted
// list. Subclasses implement the decisions only.
class StrategyBase : public Strategy
{
public:
    QList<StrategyParameter> parameters() const final;
    void configure(const QVariantMap &values, quint64 seed) final;
    QList<ExpansionRequest> ask(int maxRequests) final;
    void tell(const QList<NodeResult> &results) final;
    // Cumulative, in eviction order, each id once.
    QList<qint64> evicted() const final { return m_evicted; }

    // Like tell(), for results that already carry their requests: the nodes of an earlier
    // phase handed over by a composed strategy, or results relayed by one.
    void adopt(const QList<NodeResult> &results);

    const NodeTable &nodes() const { return m_nodes; }
    qint64 reasoningLength() const { return m_reasoningLength; }
    int memoryEntries() const { return m_memoryEntries; }

protected:
    // Strategies that refine what worked (beam, refine, evolve, agents) offer the `memory`
    // parameter: how many lessons of the optimisation memory each prompt carries.
    virtual bool offersMemory() const { return false; }
    virtual QList<StrategyParameter> ownParameters() const = 0;
    virtual void onConfigure(const ParameterValues &values) = 0;
    // At most maxRequests (>= 1) requests for the next round.
    virtual QList<ExpansionRequest> nextRequests(int maxRequests) = 0;
    // The round's new results (requests filled in from what was asked), already in nodes().
    // Results without an id (nothing stored) and repeated ids are left out.
    virtual void onResults(const QList<NodeResult> &results) = 0;

    ExpansionRequest makeRequest(Operation operation, const QList<qint64> &parents = {},
                                 int island = 0, int generation = 0) const;
    void markEvicted(qint64 id);
    bool isEvicted(qint64 id) const { return m_evictedSet.contains(id); }
    StrategyRandom &random() { return m_random; }

private:
    NodeTable m_nodes;
    StrategyRandom m_random;
    qint64 m_reasoningLength = 0;
    int m_memoryEntries = 0;
    QList<ExpansionRequest> m_inFlight;
    QList<qint64> m_evicted;
    QSet<qint64> m_evictedSet;
};

} // namespace kiln
