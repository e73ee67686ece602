#include "twophasestrategy.h"

#include "greedystrategy.h"
#include "mctsstrategy.h"

namespace kiln {

TwoPhaseStrategy::TwoPhaseStrategy() = default;
TwoPhaseStrategy::~TwoPhaseStrategy() = default;

QList<StrategyParameter> TwoPhaseStrategy::ownParameters() const
{
    StrategyParameter tree{QStringLiteral("tree"),
                           QStringLiteral("Search used after the drafts"),
                           QStringLiteral("greedy"),
                           {},
                           {},
                           {QStringLiteral("greedy"), QStringLiteral("mcts")}};
    return {{QStringLiteral("drafts"), QStringLiteral("Independent samples of the draft phase (D)"),
             8, 1, 1000000},
            tree,
            {QStringLiteral("max_children"), QStringLiteral("Children per candidate in the tree"),
             3, 1, 10000},
            {QStringLiteral("exploration"), QStringLiteral("UCT exploration constant (mcts)"),
             1.41421356, 0.0, 100.0},
            {QStringLiteral("draft_reasoning_length"),
             QStringLiteral("Reasoning budget of the drafts (0: reasoning_length)"), qint64(0),
             qint64(0), qint64(1000000)}};
}

void TwoPhaseStrategy::onConfigure(const ParameterValues &values)
{
    m_drafts = values.count(QStringLiteral("drafts"));
    m_draftReasoning = values.integer(QStringLiteral("draft_reasoning_length"));
    if (m_draftReasoning == 0)
        m_draftReasoning = reasoningLength();
    m_draftsAsked = 0;
    m_treePhase = false;
    m_draftResults.clear();

    QVariantMap sub{{QStringLiteral("max_children"), values.count(QStringLiteral("max_children"))},
                    {QStringLiteral("reasoning_length"), reasoningLength()}};
    if (values.string(QStringLiteral("tree")) == QLatin1String("mcts")) {
        auto mcts = std::make_unique<MctsStrategy>();
        sub.insert(QStringLiteral("exploration"), values.real(QStringLiteral("exploration")));
        mcts->setRootExpansion(false);
        m_tree = std::move(mcts);
    } else {
        sub.insert(QStringLiteral("initial"), 0);
        m_tree = std::make_unique<GreedyStrategy>();
    }
    // A derived seed keeps the tree's draws independent of ours.
    m_tree->configure(sub, random().next());
}

QList<ExpansionRequest> TwoPhaseStrategy::nextRequests(int maxRequests)
{
    if (m_treePhase)
        return m_tree->ask(maxRequests);
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && m_draftsAsked < m_drafts) {
        ExpansionRequest request = makeRequest(Operation::Sample);
        request.reasoningLength = m_draftReasoning;
        requests.append(request);
        ++m_draftsAsked;
    }
    return requests;
}

void TwoPhaseStrategy::onResults(const QList<NodeResult> &results)
{
    if (m_treePhase) {
        // Filtered results keep their requests, so they are relayed as such, not by position.
        m_tree->adopt(results);
        return;
    }
    m_draftResults.append(results);
    if (m_draftsAsked >= m_drafts) {
        m_treePhase = true;
        m_tree->adopt(m_draftResults);
        m_draftResults.clear();
    }
}

} // namespace kiln
