#include "mctsstrategyplugin.h"

#include "mctsstrategy.h"

namespace kiln {

QString MctsStrategyPlugin::strategyName() const
{
    return QStringLiteral("mcts");
}

Strategy *MctsStrategyPlugin::create() const
{
    return new MctsStrategy;
}

} // namespace kiln
