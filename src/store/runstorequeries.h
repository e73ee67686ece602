#pragma once

// RunStore's one-statement readers, shared by the per-table sources. A header of its own, private
// to the store, so that runstore.h need not show SqliteStatement to the layers above.
#include "runstore.h"
#include "sqlitestatement.h"

#include <QMutexLocker>

namespace kiln {

template <typename Row, typename FromRow, typename... Values>
std::optional<Row> RunStore::selectOne(const char *context, const QByteArray &sql,
                                       const FromRow &fromRow, const Values &...values)
{
    QMutexLocker lock(&m_mutex);
    clearErrorOutsideTransaction();
    SqliteStatement s(m_db, sql);
    s.bindAll(values...);
    if (s.next())
        return fromRow(s);
    if (!s.ok())
        setError(QString::fromUtf8(context), s.error());
    return std::nullopt;
}

template <typename Row, typename FromRow, typename... Values>
QList<Row> RunStore::selectAll(const char *context, const QByteArray &sql, const FromRow &fromRow,
                               const Values &...values)
{
    QMutexLocker lock(&m_mutex);
    clearErrorOutsideTransaction();
    SqliteStatement s(m_db, sql);
    s.bindAll(values...);
    QList<Row> rows;
    while (s.next())
        rows.append(fromRow(s));
    if (!s.ok()) {
        setError(QString::fromUtf8(context), s.error());
        rows.clear();
    }
    return rows;
}

template <typename Value, typename... Values>
Value RunStore::selectValue(const char *context, const QByteArray &sql, const Values &...values)
{
    const auto firstColumn = [](const SqliteStatement &s) {
        Value value{};
        s.columns(0, value);
        return value;
    };
    return selectOne<Value>(context, sql, firstColumn, values...).value_or(Value());
}

} // namespace kiln
