#include "bestofnstrategy.h"

namespace kiln {

QList<StrategyParameter> BestOfNStrategy::ownParameters() const
{
    // 0 by default: sample until the budget is spent, so width compares with the other
    // strategies at equal budget without sizing n by hand.
    return {{QStringLiteral("n"),
             QStringLiteral("Number of independent samples (0: until the budget is spent)"), 0, 0,
             1000000}};
}

void BestOfNStrategy::onConfigure(const ParameterValues &values)
{
    m_n = values.count(QStringLiteral("n"));
    m_issued = 0;
}

QList<ExpansionRequest> BestOfNStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && (m_n == 0 || m_issued < m_n)) {
        requests.append(makeRequest(Operation::Sample, {}, 0, 0));
        ++m_issued;
    }
    return requests;
}

} // namespace kiln
