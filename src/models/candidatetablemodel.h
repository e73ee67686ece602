#pragma once

#include <QAbstractTableModel>

namespace kiln {

class CandidateHighlight;

struct CandidateSummary;
class RunDocument;

// The candidates of a run as a flat table, growing row by row while the run goes on.
// Display text is formatted; SortRole carries the raw value so numbers sort as numbers (a speedup
// by its estimate, whatever its interval). A duplicate source's row is in italics.
class CandidateTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        IdColumn,
        VerdictColumn,
        SpeedupColumn,
        OperationColumn,
        ParentColumn,
        IslandColumn,
        GenerationColumn,
        TokensColumn,
        FlagsColumn,
        EvalTimeColumn,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1,
        IdRole,
        VerdictRole,   // int(Verdict), -1 while pending
        OperationRole, // int(Operation)
        IslandRole,
        GenerationRole,
        SpeedupRole,     // double, or invalid when there is none
        FlagsRole,       // QStringList of flag ids
        PlaceholderRole, // true for parents that are not in the run
        SpeedupLowRole,  // double: the 95 % interval's ends, invalid without one
        SpeedupHighRole,
        ConfirmedRole,  // bool: re-measured before it became the run's best
        DuplicateOfRole // qint64: the candidate whose judgement it reuses, invalid if none
    };

    explicit CandidateTableModel(RunDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    RunDocument *document() const { return m_document; }
    // Rows of highlighted candidates are tinted (a diagnosis finding's evidence).
    void setHighlight(CandidateHighlight *highlight);

private:
    QVariant roleData(const CandidateSummary &c, int role) const;
    QVariant displayData(const CandidateSummary &c, int column) const;
    QVariant sortData(const CandidateSummary &c, int column) const;
    QVariant toolTipData(const CandidateSummary &c, int column) const;
    QVariant styleData(const CandidateSummary &c, int column, int role) const;

    RunDocument *m_document;
    CandidateHighlight *m_highlight = nullptr;
};

} // namespace kiln
