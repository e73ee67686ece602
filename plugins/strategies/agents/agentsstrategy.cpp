#include "agentsstrategy.h"

namespace kiln {

QList<StrategyParameter> AgentsStrategy::ownParameters() const
{
    // Astra's figures are over 5 agent rounds; its roles refine the best kernel so far.
    QList<StrategyParameter> parameters = RefineStrategy::ownParameters();
    for (StrategyParameter &p : parameters) {
        if (p.name == QLatin1String("turns")) {
            p.description = QStringLiteral("Turns per trajectory (T): a sample, then T-1 rounds of "
                                           "the four roles");
            p.defaultValue = 6;
        } else if (p.name == QLatin1String("follow")) {
            p.defaultValue = QStringLiteral("best");
        }
    }
    return parameters;
}

QList<ExpansionRequest> AgentsStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests = RefineStrategy::nextRequests(maxRequests);
    for (ExpansionRequest &request : requests)
        request.agentRoles = request.operation == Operation::Refine;
    return requests;
}

} // namespace kiln
