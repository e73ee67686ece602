#include "bestofnstrategyplugin.h"

#include "bestofnstrategy.h"

namespace kiln {

QString BestOfNStrategyPlugin::strategyName() const
{
    return QStringLiteral("best-of-n");
}

Strategy *BestOfNStrategyPlugin::create() const
{
    return new BestOfNStrategy;
}

} // namespace kiln
