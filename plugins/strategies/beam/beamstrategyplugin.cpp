#include "beamstrategyplugin.h"

#include "beamstrategy.h"

namespace kiln {

QString BeamStrategyPlugin::strategyName() const
{
    return QStringLiteral("beam");
}

Strategy *BeamStrategyPlugin::create() const
{
    return new BeamStrategy;
}

} // namespace kiln
