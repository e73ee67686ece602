#pragma once

#include "core/memoryentry.h"

#include <QAbstractTableModel>
#include <QList>

namespace kiln {

class RunStore;

// The optimisation memory of a workspace as a table, over the workspace's writing connection:
// one row per lesson, newest first. The idea column is editable (the store marks the entry
// edited); rows can be deleted and the whole memory cleared. reload() reads the store again.
class MemoryTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Id,
        Task,
        Backend,
        Shape,
        Idea,
        Before,
        After,
        Gain,
        Run,
        ColumnCount
    };

    explicit MemoryTableModel(RunStore *store, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    void reload();
    // Forgets the store (it is going away); the table empties and edits are refused.
    void detach();
    const MemoryEntry &entry(int row) const { return m_entries.at(row); }
    bool removeEntry(int row);
    bool clearAll();
    QString lastError() const { return m_error; }

private:
    RunStore *m_store;
    QList<MemoryEntry> m_entries;
    QString m_error;
};

} // namespace kiln
