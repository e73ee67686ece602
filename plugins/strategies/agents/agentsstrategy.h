#pragma once

#include "refinestrategy.h"

namespace kiln {

// Astra's shape over refine's width x depth: `width` trajectories, each a sample and then
// `turns - 1` rounds in which a profiler, a planner, a coder and a tester (AgentPipeline in the
// engine) edit the trajectory's best kernel so far, sharing the trajectory's log.
class AgentsStrategy : public RefineStrategy
{
public:
    QString name() const override { return QStringLiteral("agents"); }

protected:
    QList<StrategyParameter> ownParameters() const override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
};

} // namespace kiln
