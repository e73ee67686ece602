#pragma once

#include <QAbstractTableModel>

namespace kiln {

class RunDocument;

// The candidates of a run as a flat table, growing row by row while the run goes on.
// Display text is formatted; SortRole carries the raw value so numbers sort as numbers.
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
        SpeedupRole,    // double, or invalid when there is none
        FlagsRole,      // QStringList of flag ids
        PlaceholderRole // true for parents that are not in the run
    };

    explicit CandidateTableModel(RunDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    RunDocument *document() const { return m_document; }

private:
    RunDocument *m_document;
};

} // namespace kiln
