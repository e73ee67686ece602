#pragma once

#include "descriptorgrid.h"
#include "strategybase.h"

#include <QMap>

namespace kiln {

// Island evolution. Generation 0 samples `population` individuals per island; every later
// generation each island breeds `offspring` children (mutate / crossover / refine, by rates)
// from parents chosen by tournament in its population or, with probability archive_rate, from
// the MAP-Elites archive; survivors are the best `population` of parents plus children.
// Every migration_interval generations the best `migrants` of island i join island i+1 (ring).
// Individuals that drop out of every population and the archive are reported by evicted().
class EvolveStrategy : public StrategyBase
{
public:
    struct Migration
    {
        int generation = 0;
        int from = 0;
        int to = 0;
        qint64 id = 0;
    };

    QString name() const override { return QStringLiteral("evolve"); }
    QList<qint64> population(int island) const { return m_populations.value(island); }
    // MAP-Elites archive: cell key -> elite id.
    QMap<QString, qint64> archive() const { return m_archive; }
    const DescriptorGrid &grid() const { return m_grid; }
    int generation() const { return m_generation; }
    QList<Migration> migrations() const { return m_migrations; }
    QString budgetShortfall(const QVariantMap &values, int evaluations) const override;

protected:
    bool offersMemory() const override { return true; }
    QList<StrategyParameter> ownParameters() const override;
    void onConfigure(const ParameterValues &values) override;
    QList<ExpansionRequest> nextRequests(int maxRequests) override;
    void onResults(const QList<NodeResult> &results) override;

private:
    void endGeneration();
    void migrate();
    void queueGeneration();
    ExpansionRequest breed(int island);
    qint64 tournament(const QList<qint64> &pool);
    qint64 pickParent(int island, qint64 exclude);
    QSet<qint64> members() const;

    int m_islands = 4;
    int m_populationSize = 8;
    int m_offspring = 8;
    int m_tournament = 3;
    double m_mutateRate = 0.5;
    double m_crossoverRate = 0.2;
    double m_refineRate = 0.3;
    int m_migrationInterval = 5;
    int m_migrants = 1;
    double m_archiveRate = 0.1;
    DescriptorGrid m_grid;

    int m_generation = 0;
    QList<QList<qint64>> m_populations;
    QList<QList<qint64>> m_children; // this generation's results per island
    QMap<QString, qint64> m_archive;
    QList<ExpansionRequest> m_queue;
    QList<Migration> m_migrations;
};

} // namespace kiln
