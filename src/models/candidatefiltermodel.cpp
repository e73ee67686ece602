#include "candidatefiltermodel.h"

#include "candidatetablemodel.h"

namespace kiln {

CandidateFilterModel::CandidateFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(CandidateTableModel::SortRole);
    setDynamicSortFilter(true);
}

void CandidateFilterModel::setVerdicts(const QSet<int> &verdicts)
{
    m_verdicts = verdicts;
    invalidateFilter();
}

void CandidateFilterModel::setOperations(const QSet<int> &operations)
{
    m_operations = operations;
    invalidateFilter();
}

void CandidateFilterModel::setFlagFilter(const QString &text)
{
    m_flag = text.trimmed();
    invalidateFilter();
}

void CandidateFilterModel::setIsland(std::optional<int> island)
{
    m_island = island;
    invalidateFilter();
}

void CandidateFilterModel::setGenerationRange(std::optional<int> minimum,
                                              std::optional<int> maximum)
{
    m_minGeneration = minimum;
    m_maxGeneration = maximum;
    invalidateFilter();
}

void CandidateFilterModel::setMinimumSpeedup(std::optional<double> speedup)
{
    m_minSpeedup = speedup;
    invalidateFilter();
}

void CandidateFilterModel::clearFilters()
{
    m_verdicts.clear();
    m_operations.clear();
    m_flag.clear();
    m_island.reset();
    m_minGeneration.reset();
    m_maxGeneration.reset();
    m_minSpeedup.reset();
    invalidateFilter();
}

bool CandidateFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (index.data(CandidateTableModel::PlaceholderRole).toBool())
        return false;
    if (!m_verdicts.isEmpty() &&
        !m_verdicts.contains(index.data(CandidateTableModel::VerdictRole).toInt()))
        return false;
    if (!m_operations.isEmpty() &&
        !m_operations.contains(index.data(CandidateTableModel::OperationRole).toInt()))
        return false;
    if (m_island && index.data(CandidateTableModel::IslandRole).toInt() != *m_island)
        return false;
    if (m_minGeneration || m_maxGeneration) {
        const int generation = index.data(CandidateTableModel::GenerationRole).toInt();
        if ((m_minGeneration && generation < *m_minGeneration) ||
            (m_maxGeneration && generation > *m_maxGeneration))
            return false;
    }
    if (m_minSpeedup) {
        const QVariant speedup = index.data(CandidateTableModel::SpeedupRole);
        if (!speedup.isValid() || speedup.toDouble() < *m_minSpeedup)
            return false;
    }
    if (!m_flag.isEmpty()) {
        const QStringList flags = index.data(CandidateTableModel::FlagsRole).toStringList();
        if (m_flag == QStringLiteral("*"))
            return !flags.isEmpty();
        bool found = false;
        for (const QString &flag : flags)
            found = found || flag.contains(m_flag, Qt::CaseInsensitive);
        if (!found)
            return false;
    }
    return true;
}

} // namespace kiln
