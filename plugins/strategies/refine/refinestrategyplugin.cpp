#include "refinestrategyplugin.h"

#include "refinestrategy.h"

namespace kiln {

QString RefineStrategyPlugin::strategyName() const
{
    return QStringLiteral("refine");
}

Strategy *RefineStrategyPlugin::create() const
{
    return new RefineStrategy;
}

} // namespace kiln
