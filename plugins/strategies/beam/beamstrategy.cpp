#include "beamstrategy.h"

namespace kiln {

QList<StrategyParameter> BeamStrategy::ownParameters() const
{
    return {{QStringLiteral("beams"), QStringLiteral("Candidates kept per round (B)"), 4, 1, 10000},
            {QStringLiteral("children"), QStringLiteral("Refinements per kept candidate (K)"), 4, 1,
             10000},
            {QStringLiteral("initial"), QStringLiteral("Samples in round 0 (0: beams x children)"),
             0, 0, 1000000},
            {QStringLiteral("keep_parents"),
             QStringLiteral("Parents compete with their children for the next beam"), true}};
}

void BeamStrategy::onConfigure(const ParameterValues &values)
{
    m_beams = values.count(QStringLiteral("beams"));
    m_children = values.count(QStringLiteral("children"));
    m_initial = values.count(QStringLiteral("initial"));
    if (m_initial == 0)
        m_initial = m_beams * m_children;
    m_keepParents = values.boolean(QStringLiteral("keep_parents"));
    m_round = 0;
    m_beam.clear();
    m_roundResults.clear();
    m_queue.clear();
    queueSamples();
}

void BeamStrategy::queueSamples()
{
    for (int i = 0; i < m_initial; ++i)
        m_queue.append(makeRequest(Operation::Sample, {}, 0, m_round));
}

QList<ExpansionRequest> BeamStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && !m_queue.isEmpty())
        requests.append(m_queue.takeFirst());
    return requests;
}

void BeamStrategy::onResults(const QList<NodeResult> &results)
{
    for (const NodeResult &result : results)
        m_roundResults.append(result.id);
    if (m_queue.isEmpty())
        endRound();
}

void BeamStrategy::endRound()
{
    QList<qint64> pool;
    if (m_keepParents)
        pool = m_beam;
    for (qint64 id : std::as_const(m_roundResults)) {
        // Without code there is nothing to refine, so such nodes never enter the beam.
        if (nodes().at(id).expandable() && !pool.contains(id))
            pool.append(id);
    }
    nodes().sortByRank(pool);
    if (pool.size() > m_beams)
        pool.resize(m_beams);
    m_roundResults.clear();
    ++m_round;

    if (pool.isEmpty() && m_beam.isEmpty()) {
        queueSamples();
        return;
    }
    if (!pool.isEmpty()) {
        for (qint64 id : std::as_const(m_beam)) {
            if (!pool.contains(id))
                markEvicted(id);
        }
        m_beam = pool;
    }
    // Interleaved so a truncated round still spreads over the beams.
    for (int k = 0; k < m_children; ++k) {
        for (qint64 id : std::as_const(m_beam))
            m_queue.append(makeRequest(Operation::Refine, {id}, 0, m_round));
    }
}

QString BeamStrategy::budgetShortfall(const QVariantMap &values, int evaluations) const
{
    const ParameterValues v(parameters(), values);
    const int beams = v.count(QStringLiteral("beams"));
    const int children = v.count(QStringLiteral("children"));
    const int initial = v.count(QStringLiteral("initial")) > 0 ? v.count(QStringLiteral("initial"))
                                                               : beams * children;
    if (evaluations > initial)
        return {};
    return QStringLiteral("beam samples %1 candidates in round 0 (initial, or beams x children), "
                          "so a budget of %2 evaluations never refines one: lower initial or "
                          "beams x children below %2, or raise the budget")
        .arg(initial)
        .arg(evaluations);
}

} // namespace kiln
