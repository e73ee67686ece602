#include "greedystrategyplugin.h"

#include "greedystrategy.h"

namespace kiln {

QString GreedyStrategyPlugin::strategyName() const
{
    return QStringLiteral("greedy");
}

Strategy *GreedyStrategyPlugin::create() const
{
    return new GreedyStrategy;
}

} // namespace kiln
