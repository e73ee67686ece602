#pragma once

#include "core/cheatflag.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace kiln {

// Flags of one screen, merged per id: every line and a few details each, with the message,
// blocking status and tier from FlagCatalog.
class ScreenFlags
{
public:
    void add(const QString &id, int line, const QString &detail = {});
    void add(const QString &id, const QList<int> &lines, const QString &detail = {});
    // A flag another screen raised (its lines already in this file's numbering), under its
    // own id or under `id` when given.
    void merge(const CheatFlag &flag, const QString &id = {});
    // The detail another screen appended to the catalogue's message, "message (detail)".
    static QString detailOf(const CheatFlag &flag);
    bool contains(const QString &id) const { return m_entries.contains(id); }
    QList<CheatFlag> flags() const;

private:
    struct Entry
    {
        QList<int> lines;
        QStringList details;
    };
    QMap<QString, Entry> m_entries;
    QStringList m_order;
};

} // namespace kiln
