#pragma once

#include "strategybase.h"

#include <memory>

namespace kiln {

// The two-phase schedule: a draft phase of `drafts` independent samples, then tree expansion
// with feedback (greedy best-first or MCTS) rooted at the drafts. The tree phase starts once
// every draft has been asked and told; it samples again only when nothing is expandable.
class TwoPhaseStrategy : public StrategyBase
{
public:
    TwoPhaseStrategy();
    ~TwoPhaseStrategy() override;

    QString name() const override { return QStringLiteral("two-phase"); }
    bool inTreePhase() const { return m_treePhase; }
    const StrategyBase *tree() const { return m_tree.get(); }

protected:
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &results) override;

private:
    int m_drafts = 8;
    qint64 m_draftReasoning = 0;
    int m_draftsAsked = 0;
    bool m_treePhase = false;
    QList<NodeResult> m_draftResults;
    std::unique_ptr<StrategyBase> m_tree;
};

} // namespace kiln
