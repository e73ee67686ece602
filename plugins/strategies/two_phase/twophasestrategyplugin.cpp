#include "twophasestrategyplugin.h"

#include "twophasestrategy.h"

namespace kiln {

QString TwoPhaseStrategyPlugin::strategyName() const
{
    return QStringLiteral("two-phase");
}

Strategy *TwoPhaseStrategyPlugin::create() const
{
    return new TwoPhaseStrategy;
}

} // namespace kiln
