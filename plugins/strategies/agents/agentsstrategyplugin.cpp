#include "agentsstrategyplugin.h"

#include "agentsstrategy.h"

namespace kiln {

QString AgentsStrategyPlugin::strategyName() const
{
    return QStringLiteral("agents");
}

Strategy *AgentsStrategyPlugin::create() const
{
    return new AgentsStrategy;
}

} // namespace kiln
