#include "bestofnstrategy.h"

namespace kiln {

QList<StrategyParameter> BestOfNStrategy::ownParameters() const
{
    return {{QStringLiteral("n"),
             QStringLiteral("Number of independent samples (the budget may stop the run sooner)"),
             16, 1, 1000000}};
}

void BestOfNStrategy::onConfigure(const ParameterValues &values)
{
    m_n = values.count(QStringLiteral("n"));
    m_issued = 0;
}

QList<ExpansionRequest> BestOfNStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && m_issued < m_n) {
        requests.append(makeRequest(Operation::Sample, {}, 0, 0));
        ++m_issued;
    }
    return requests;
}

} // namespace kiln
