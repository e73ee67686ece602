#pragma once

#include "strategybase.h"

namespace kiln {

// Beam search: round 0 samples `initial` candidates; every round keeps the top `beams` of the
// pool (the previous beam too when keep_parents) and refines each kept one `children` times.
// A round is complete when all its requests were told, however many asks that took.
class BeamStrategy : public StrategyBase
{
public:
    QString name() const override { return QStringLiteral("beam"); }
    QList<qint64> beam() const { return m_beam; }
    int round() const { return m_round; }
    QString budgetShortfall(const QVariantMap &values, int evaluations) const override;

protected:
    bool offersMemory() const override { return true; }
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &results) override;

private:
    void endRound();
    void queueSamples();

    int m_beams = 4;
    int m_children = 4;
    int m_initial = 16;
    bool m_keepParents = true;
    int m_round = 0;
    QList<qint64> m_beam;
    QList<qint64> m_roundResults;
    QList<ExpansionRequest> m_queue;
};

} // namespace kiln
