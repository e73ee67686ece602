#include "memorytablemodel.h"

#include "store/runstore.h"

namespace kiln {

MemoryTableModel::MemoryTableModel(RunStore *store, QObject *parent)
    : QAbstractTableModel(parent), m_store(store)
{
    reload();
}

void MemoryTableModel::reload()
{
    beginResetModel();
    m_entries = m_store ? m_store->memoryEntries() : QList<MemoryEntry>();
    endResetModel();
}

void MemoryTableModel::detach()
{
    m_store = nullptr;
    reload();
}

int MemoryTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int MemoryTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_entries.size())
        return {};
    const MemoryEntry &e = m_entries.at(index.row());
    if (role == Qt::ToolTipRole && index.column() == Idea)
        return e.edited ? tr("Edited by hand") : tr("As recorded; double-click to edit");
    if (role == Qt::TextAlignmentRole && index.column() >= Before && index.column() <= Gain)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Id:
        return e.id;
    case Task:
        return e.task;
    case Backend:
        return e.backend;
    case Shape:
        return e.shape;
    case Idea:
        return role == Qt::DisplayRole && e.edited ? e.idea + tr(" (edited)") : e.idea;
    case Before:
        return QStringLiteral("%1x").arg(e.speedupBefore, 0, 'f', 2);
    case After:
        return QStringLiteral("%1x").arg(e.speedupAfter, 0, 'f', 2);
    case Gain:
        return QStringLiteral("%1x").arg(e.gain(), 0, 'f', 2);
    case Run:
        return e.runId ? QVariant(*e.runId) : QVariant();
    default:
        return {};
    }
}

QVariant MemoryTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const QStringList names{tr("#"),    tr("Task"), tr("Backend"), tr("Shape"), tr("Idea"),
                                   tr("From"), tr("To"),   tr("Gain"),    tr("Run")};
    return names.value(section);
}

Qt::ItemFlags MemoryTableModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Idea)
        f |= Qt::ItemIsEditable;
    return f;
}

bool MemoryTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || index.column() != Idea || !m_store)
        return false;
    MemoryEntry &e = m_entries[index.row()];
    const QString idea = value.toString().trimmed();
    if (idea == e.idea)
        return false;
    if (!m_store->updateMemoryIdea(e.id, idea)) {
        m_error = m_store->lastError();
        return false;
    }
    e.idea = idea;
    e.edited = true;
    emit dataChanged(index, index);
    return true;
}

bool MemoryTableModel::removeEntry(int row)
{
    if (!m_store || row < 0 || row >= m_entries.size())
        return false;
    if (!m_store->deleteMemoryEntry(m_entries.at(row).id)) {
        m_error = m_store->lastError();
        return false;
    }
    beginRemoveRows({}, row, row);
    m_entries.removeAt(row);
    endRemoveRows();
    return true;
}

bool MemoryTableModel::clearAll()
{
    if (!m_store || m_store->clearMemory() < 0) {
        m_error = m_store ? m_store->lastError() : tr("no workspace is open");
        return false;
    }
    reload();
    return true;
}

} // namespace kiln
