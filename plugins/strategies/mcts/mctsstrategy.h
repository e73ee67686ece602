#pragma once

#include "strategybase.h"

#include <QHash>

namespace kiln {

// Monte Carlo tree search with UCT over the candidate tree. A virtual root (id 0) stands for
// the task prompt: expanding it samples, expanding a candidate refines (or mutates) it.
// Selection descends by UCT while the current node is full; a node with room for another
// child (max_children, or progressive widening) is expanded. Each result's value
// v = s / (s + value_scale) for a correct candidate of speedup s, 0 for a failure, is
// backpropagated to the node and all its ancestors. Parallel requests in one round add a
// virtual loss (visits with value 0) along their path so the next selection goes elsewhere.
class MctsStrategy : public StrategyBase
{
public:
    QString name() const override { return QStringLiteral("mcts"); }

    static double uct(double valueSum, double visits, double parentVisits, double exploration);
    double value(double speedup, bool correct) const;

    int visits(qint64 id) const { return m_stats.value(id).visits; }
    double valueSum(qint64 id) const { return m_stats.value(id).valueSum; }
    QList<qint64> treeChildren(qint64 id) const { return m_children.value(id); }
    // Composition (two-phase): stop sampling new roots while anything else can be expanded.
    void setRootExpansion(bool enabled) { m_rootExpansion = enabled; }

protected:
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &results) override;

private:
    struct Stat
    {
        int visits = 0;
        double valueSum = 0.0;
        int virtualVisits = 0;
        int pendingChildren = 0;
    };

    int childLimit(qint64 id) const;
    bool canExpand(qint64 id) const;
    bool exhausted(qint64 id) const;
    double effectiveVisits(qint64 id) const;
    qint64 selectLeaf(QList<qint64> &path) const;

    double m_exploration = 1.41421356;
    int m_maxChildren = 3;
    int m_rootChildren = 8;
    double m_widening = 0.0;
    double m_valueScale = 1.0;
    int m_virtualLoss = 1;
    Operation m_expansion = Operation::Refine;
    bool m_rootExpansion = true;
    QHash<qint64, Stat> m_stats; // 0: the virtual root
    QHash<qint64, QList<qint64>> m_children;
    QHash<qint64, qint64> m_treeParent;
};

} // namespace kiln
