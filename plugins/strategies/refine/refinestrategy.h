#pragma once

#include "strategybase.h"

#include <QList>

namespace kiln {

// Width x depth: `width` independent trajectories of `turns` turns. Turn 1 samples; each
// later turn refines the trajectory's latest (or best-so-far) candidate with its feedback.
// The trajectory index travels as the request's island, the turn as its generation.
class RefineStrategy : public StrategyBase
{
public:
    QString name() const override { return QStringLiteral("refine"); }
    // Node ids of trajectory t, in turn order.
    QList<qint64> trajectory(int t) const { return m_trajectories.value(t); }

protected:
    bool offersMemory() const override { return true; }
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &results) override;

private:
    void startRound();
    qint64 followed(int t) const;

    int m_width = 4;
    int m_turns = 8;
    bool m_followBest = false;
    QList<QList<qint64>> m_trajectories;
    QList<int> m_queue; // trajectories still to ask this round
};

} // namespace kiln
