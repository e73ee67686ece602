#pragma once

#include <QSet>
#include <QSortFilterProxyModel>
#include <optional>

namespace kiln {

// Sorting and filtering of CandidateTableModel: by verdict, flag, operation, island, generation
// range and minimum speedup. Parents that are not part of the run are always hidden.
class CandidateFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    static constexpr int PendingVerdict = -1;

    explicit CandidateFilterModel(QObject *parent = nullptr);

    // Empty sets mean "any".
    void setVerdicts(const QSet<int> &verdicts);
    void setOperations(const QSet<int> &operations);
    // Substring of a flag id; "*" means "has any flag".
    void setFlagFilter(const QString &text);
    void setIsland(std::optional<int> island);
    void setGenerationRange(std::optional<int> minimum, std::optional<int> maximum);
    void setMinimumSpeedup(std::optional<double> speedup);
    void clearFilters();

    QSet<int> verdicts() const { return m_verdicts; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QSet<int> m_verdicts;
    QSet<int> m_operations;
    QString m_flag;
    std::optional<int> m_island;
    std::optional<int> m_minGeneration;
    std::optional<int> m_maxGeneration;
    std::optional<double> m_minSpeedup;
};

} // namespace kiln
