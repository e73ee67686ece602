#pragma once

#include "strategy/strategy.h"

#include <QObject>

namespace kiln {

// Factory of the "greedy" strategy, built as a static Qt plugin.
class GreedyStrategyPlugin : public QObject, public StrategyFactory
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KilnStrategyFactory_iid FILE "greedy.json")
    Q_INTERFACES(kiln::StrategyFactory)

public:
    QString strategyName() const override;
    Strategy *create() const override;
};

} // namespace kiln
