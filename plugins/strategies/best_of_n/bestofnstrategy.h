#pragma once

#include "strategybase.h"

namespace kiln {

// Width only: n independent samples of the task prompt; the best verified one wins.
class BestOfNStrategy : public StrategyBase
{
public:
    QString name() const override { return QStringLiteral("best-of-n"); }
    int issued() const { return m_issued; }

protected:
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &) override {}

private:
    int m_n = 16;
    int m_issued = 0;
};

} // namespace kiln
