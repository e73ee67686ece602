#include "dummystrategyplugin.h"

namespace kiln::test {

namespace {

// Samples forever; enough to tell it apart from the built-ins.
class DummyStrategy : public Strategy
{
public:
    QString name() const override { return QStringLiteral("dummy"); }
    QList<StrategyParameter> parameters() const override
    {
        return {{QStringLiteral("width"), QStringLiteral("Samples per round"), 2, 1, 8}};
    }
    void configure(const QVariantMap &, quint64) override {}
    QList<ExpansionRequest> ask(int maxRequests) override
    {
        return QList<ExpansionRequest>(qMin(maxRequests, 2));
    }
    void tell(const QList<NodeResult> &) override {}
};

} // namespace

QString DummyStrategyPlugin::strategyName() const
{
    return QStringLiteral("dummy");
}

Strategy *DummyStrategyPlugin::create() const
{
    return new DummyStrategy;
}

} // namespace kiln::test
