#include "evolvestrategy.h"

#include <QSet>
#include <algorithm>

namespace kiln {

QList<StrategyParameter> EvolveStrategy::ownParameters() const
{
    return {
        {QStringLiteral("islands"), QStringLiteral("Independent populations"), 4, 1, 1000},
        {QStringLiteral("population"), QStringLiteral("Individuals per island"), 8, 1, 100000},
        {QStringLiteral("offspring"),
         QStringLiteral("Children per island per generation (0: population)"), 0, 0, 100000},
        {QStringLiteral("tournament"), QStringLiteral("Tournament size for parent selection"), 3, 1,
         1000},
        {QStringLiteral("mutate_rate"), QStringLiteral("Relative weight of mutation"), 0.5, 0.0,
         1.0},
        {QStringLiteral("crossover_rate"),
         QStringLiteral("Relative weight of crossover (two parents)"), 0.2, 0.0, 1.0},
        {QStringLiteral("refine_rate"),
         QStringLiteral("Relative weight of refinement with feedback"), 0.3, 0.0, 1.0},
        {QStringLiteral("migration_interval"),
         QStringLiteral("Generations between migrations (0: never)"), 5, 0, 100000},
        {QStringLiteral("migrants"),
         QStringLiteral("Best individuals copied to the next island on the ring"), 1, 0, 1000},
        {QStringLiteral("archive_rate"),
         QStringLiteral("Probability that a parent comes from the MAP-Elites archive"), 0.1, 0.0,
         1.0},
        {QStringLiteral("descriptors"),
         QStringLiteral("MAP-Elites axes: key[:bins[:lo:hi]],... (empty: one cell)"), QString()},
    };
}

void EvolveStrategy::onConfigure(const ParameterValues &values)
{
    m_islands = values.count(QStringLiteral("islands"));
    m_populationSize = values.count(QStringLiteral("population"));
    m_offspring = values.count(QStringLiteral("offspring"));
    if (m_offspring == 0)
        m_offspring = m_populationSize;
    m_tournament = values.count(QStringLiteral("tournament"));
    m_mutateRate = values.real(QStringLiteral("mutate_rate"));
    m_crossoverRate = values.real(QStringLiteral("crossover_rate"));
    m_refineRate = values.real(QStringLiteral("refine_rate"));
    m_migrationInterval = values.count(QStringLiteral("migration_interval"));
    m_migrants = values.count(QStringLiteral("migrants"));
    m_archiveRate = values.real(QStringLiteral("archive_rate"));
    m_grid.setSpec(values.string(QStringLiteral("descriptors")));

    m_generation = 0;
    m_populations = QList<QList<qint64>>(m_islands);
    m_children = QList<QList<qint64>>(m_islands);
    m_archive.clear();
    m_queue.clear();
    m_migrations.clear();
    // Interleaved by island so a truncated round still seeds every island.
    for (int k = 0; k < m_populationSize; ++k) {
        for (int island = 0; island < m_islands; ++island)
            m_queue.append(makeRequest(Operation::Sample, {}, island, 0));
    }
}

QList<ExpansionRequest> EvolveStrategy::nextRequests(int maxRequests)
{
    QList<ExpansionRequest> requests;
    while (requests.size() < maxRequests && !m_queue.isEmpty())
        requests.append(m_queue.takeFirst());
    return requests;
}

void EvolveStrategy::onResults(const QList<NodeResult> &results)
{
    for (const NodeResult &result : results) {
        const int island = qBound(0, result.request.island, m_islands - 1);
        m_children[island].append(result.id);
        const SearchNode &node = nodes().at(result.id);
        if (!node.correct)
            continue; // only verified candidates are elites
        const QString cell = m_grid.cell(node);
        const auto it = m_archive.constFind(cell);
        if (it == m_archive.constEnd() || nodes().higher(node.id, *it))
            m_archive.insert(cell, node.id);
    }
    if (m_queue.isEmpty())
        endGeneration();
}

QSet<qint64> EvolveStrategy::members() const
{
    QSet<qint64> all;
    for (const QList<qint64> &population : m_populations) {
        for (qint64 id : population)
            all.insert(id);
    }
    for (qint64 id : m_archive)
        all.insert(id);
    return all;
}

void EvolveStrategy::endGeneration()
{
    const QSet<qint64> before = members();
    for (int island = 0; island < m_islands; ++island) {
        QList<qint64> pool = m_populations[island];
        for (qint64 id : std::as_const(m_children[island])) {
            // Nothing to breed from a candidate without code.
            if (nodes().at(id).expandable() && !pool.contains(id))
                pool.append(id);
        }
        nodes().sortByRank(pool);
        if (pool.size() > m_populationSize)
            pool.resize(m_populationSize);
        m_populations[island] = pool;
        m_children[island].clear();
    }
    if (m_islands > 1 && m_migrationInterval > 0 && m_migrants > 0 && m_generation > 0 &&
        m_generation % m_migrationInterval == 0)
        migrate();

    const QSet<qint64> after = members();
    QList<qint64> gone(before.begin(), before.end());
    std::sort(gone.begin(), gone.end());
    for (qint64 id : std::as_const(gone)) {
        if (!after.contains(id))
            markEvicted(id);
    }
    ++m_generation;
    queueGeneration();
}

void EvolveStrategy::migrate()
{
    // Snapshot first: a migrant moves one step along the ring per migration, not around it.
    QList<QList<qint64>> emigrants(m_islands);
    for (int island = 0; island < m_islands; ++island)
        emigrants[island] = m_populations[island].mid(0, m_migrants);
    for (int from = 0; from < m_islands; ++from) {
        const int to = (from + 1) % m_islands;
        QList<qint64> &target = m_populations[to];
        QList<qint64> incoming;
        for (qint64 id : std::as_const(emigrants[from])) {
            if (!target.contains(id))
                incoming.append(id);
        }
        // Migrants always enter, replacing the target's worst (target is sorted best first).
        const qsizetype keep = std::max<qsizetype>(0, m_populationSize - incoming.size());
        if (target.size() > keep)
            target.resize(keep);
        for (qint64 id : std::as_const(incoming)) {
            target.append(id);
            m_migrations.append({m_generation, from, to, id});
        }
        nodes().sortByRank(target);
    }
}

void EvolveStrategy::queueGeneration()
{
    for (int k = 0; k < m_offspring; ++k) {
        for (int island = 0; island < m_islands; ++island)
            m_queue.append(breed(island));
    }
}

qint64 EvolveStrategy::tournament(const QList<qint64> &pool)
{
    if (pool.isEmpty())
        return 0;
    qint64 best = pool[random().below(int(pool.size()))];
    for (int i = 1; i < m_tournament; ++i) {
        const qint64 contender = pool[random().below(int(pool.size()))];
        if (nodes().higher(contender, best))
            best = contender;
    }
    return best;
}

qint64 EvolveStrategy::pickParent(int island, qint64 exclude)
{
    QList<qint64> pool = m_populations[island];
    pool.removeAll(exclude);
    QList<qint64> elites = m_archive.values();
    elites.removeAll(exclude);
    const bool fromArchive =
        !elites.isEmpty() && (pool.isEmpty() || random().chance(m_archiveRate));
    if (fromArchive)
        return elites[random().below(int(elites.size()))]; // uniform over cells
    return tournament(pool);
}

ExpansionRequest EvolveStrategy::breed(int island)
{
    const qint64 first = pickParent(island, 0);
    if (first == 0)
        return makeRequest(Operation::Sample, {}, island, m_generation);

    const double total = m_mutateRate + m_crossoverRate + m_refineRate;
    const double draw = random().unit() * total;
    Operation operation = Operation::Mutate;
    if (total <= 0.0 || draw < m_mutateRate)
        operation = Operation::Mutate;
    else if (draw < m_mutateRate + m_crossoverRate)
        operation = Operation::Crossover;
    else
        operation = Operation::Refine;

    if (operation == Operation::Crossover) {
        const qint64 second = pickParent(island, first);
        if (second != 0)
            return makeRequest(Operation::Crossover, {first, second}, island, m_generation);
        operation = Operation::Mutate; // a lone individual has no one to cross with
    }
    return makeRequest(operation, {first}, island, m_generation);
}

QString EvolveStrategy::budgetShortfall(const QVariantMap &values, int evaluations) const
{
    const ParameterValues v(parameters(), values);
    const int islands = v.count(QStringLiteral("islands"));
    const int population = v.count(QStringLiteral("population"));
    if (evaluations > islands * population)
        return {};
    return QStringLiteral("evolve first fills %1 islands x %2 individuals = %3 samples, so a "
                          "budget of %4 evaluations ends before any mutation, crossover or "
                          "migration (the run is %4 independent samples): make islands x "
                          "population smaller than %4 (say %5 x %6), or raise the budget")
        .arg(islands)
        .arg(population)
        .arg(islands * population)
        .arg(evaluations)
        .arg(std::max(1, std::min(islands, evaluations / 8)))
        .arg(std::max(2, evaluations / (2 * std::max(1, std::min(islands, evaluations / 8)))));
}

} // namespace kiln
