#include "sqlitestatement.h"

#include <QJsonDocument>
#include <sqlite3.h>

namespace kiln {

SqliteStatement::SqliteStatement(sqlite3 *db, const char *sql) : m_db(db)
{
    const int rc = sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr);
    m_ok = rc == SQLITE_OK && m_stmt;
    if (!m_ok)
        fail(rc);
}

SqliteStatement::~SqliteStatement()
{
    sqlite3_finalize(m_stmt);
}

void SqliteStatement::fail(int code)
{
    m_ok = false;
    if (m_error.isEmpty()) {
        const char *message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
        m_error = QString::fromUtf8(message ? message : sqlite3_errstr(code));
    }
}

void SqliteStatement::bind(int index, qint64 value)
{
    if (m_ok) {
        const int rc = sqlite3_bind_int64(m_stmt, index, value);
        if (rc != SQLITE_OK)
            fail(rc);
    }
}

void SqliteStatement::bind(int index, double value)
{
    if (m_ok) {
        const int rc = sqlite3_bind_double(m_stmt, index, value);
        if (rc != SQLITE_OK)
            fail(rc);
    }
}

void SqliteStatement::bind(int index, const QString &value)
{
    if (m_ok) {
        const QByteArray utf8 = value.toUtf8();
        const int rc =
            sqlite3_bind_text64(m_stmt, index, utf8.constData(), sqlite3_uint64(utf8.size()),
                                SQLITE_TRANSIENT, SQLITE_UTF8);
        if (rc != SQLITE_OK)
            fail(rc);
    }
}

void SqliteStatement::bind(int index, const QDateTime &value)
{
    bind(index, value.toMSecsSinceEpoch());
}

void SqliteStatement::bind(int index, const QJsonObject &value)
{
    bindJson(index, QJsonDocument(value));
}

void SqliteStatement::bind(int index, const QJsonArray &value)
{
    bindJson(index, QJsonDocument(value));
}

void SqliteStatement::bindJson(int index, const QJsonDocument &document)
{
    bind(index, QString::fromUtf8(document.toJson(QJsonDocument::Compact)));
}

void SqliteStatement::bindNull(int index)
{
    if (m_ok) {
        const int rc = sqlite3_bind_null(m_stmt, index);
        if (rc != SQLITE_OK)
            fail(rc);
    }
}

bool SqliteStatement::next()
{
    if (!m_ok)
        return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE)
        fail(rc);
    return false;
}

bool SqliteStatement::exec()
{
    while (next()) {
    }
    return m_ok;
}

bool SqliteStatement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

qint64 SqliteStatement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double SqliteStatement::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

QString SqliteStatement::text(int column) const
{
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    const int size = sqlite3_column_bytes(m_stmt, column);
    return data ? QString::fromUtf8(data, size) : QString();
}

QByteArrayView SqliteStatement::bytes(int column) const
{
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    return data ? QByteArrayView(data, sqlite3_column_bytes(m_stmt, column)) : QByteArrayView();
}

std::optional<qint64> SqliteStatement::optionalInt64(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return int64(column);
}

std::optional<double> SqliteStatement::optionalReal(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return real(column);
}

QDateTime SqliteStatement::dateTime(int column) const
{
    return QDateTime::fromMSecsSinceEpoch(int64(column), Qt::UTC);
}

// A malformed value must never take the reader down: it reads as an empty object.
QJsonObject SqliteStatement::jsonObject(int column) const
{
    return QJsonDocument::fromJson(text(column).toUtf8()).object();
}

QJsonArray SqliteStatement::jsonArray(int column) const
{
    return QJsonDocument::fromJson(text(column).toUtf8()).array();
}

} // namespace kiln
