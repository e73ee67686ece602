#pragma once

#include "strategy/strategy.h"

#include <QObject>

namespace kiln::test {

// A strategy shipped as a dynamic plugin, to exercise StrategyRegistry's directory scan.
class DummyStrategyPlugin : public QObject, public StrategyFactory
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KilnStrategyFactory_iid FILE "dummystrategy.json")
    Q_INTERFACES(kiln::StrategyFactory)

public:
    QString strategyName() const override;
    Strategy *create() const override;
};

} // namespace kiln::test
