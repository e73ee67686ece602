#pragma once

#include "strategybase.h"

#include <QHash>

namespace kiln {

// Greedy best-first tree search: after `initial` samples, every request refines the best node
// (by rank) that has fewer than `max_children` children, counting the ones asked in the same
// round. With nothing expandable it samples a new root.
class GreedyStrategy : public StrategyBase
{
public:
    QString name() const override { return QStringLiteral("greedy"); }

protected:
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &) override {}

private:
    int m_initial = 4;
    int m_maxChildren = 3;
    int m_samples = 0;
};

} // namespace kiln
