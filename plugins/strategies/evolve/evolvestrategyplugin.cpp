#include "evolvestrategyplugin.h"

#include "evolvestrategy.h"

namespace kiln {

QString EvolveStrategyPlugin::strategyName() const
{
    return QStringLiteral("evolve");
}

Strategy *EvolveStrategyPlugin::create() const
{
    return new EvolveStrategy;
}

} // namespace kiln
