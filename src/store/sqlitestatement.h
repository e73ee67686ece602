#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

struct sqlite3;
struct sqlite3_stmt;

namespace kiln {

// A prepared statement that finalizes itself. Private to the store: nothing above it sees SQLite.
// Parameters are 1-based, columns 0-based, as in the C API.
class SqliteStatement
{
public:
    SqliteStatement(sqlite3 *db, const char *sql);
    SqliteStatement(sqlite3 *db, const QByteArray &sql) : SqliteStatement(db, sql.constData()) {}
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    // False when preparing or binding failed; error() then says why.
    bool ok() const { return m_ok; }
    QString error() const { return m_error; }

    void bind(int index, qint64 value);
    void bind(int index, int value) { bind(index, qint64(value)); }
    void bind(int index, bool value) { bind(index, qint64(value ? 1 : 0)); }
    void bind(int index, double value);
    void bind(int index, const QString &value);
    void bind(int index, const std::optional<qint64> &value);
    void bind(int index, const std::optional<double> &value);
    void bindNull(int index);

    // Advances to the next row: true while a row is available. After false, ok() tells whether
    // the statement finished or failed.
    bool next();
    // Runs a statement that returns no rows to completion.
    bool exec();

    bool isNull(int column) const;
    qint64 int64(int column) const;
    double real(int column) const;
    QString text(int column) const;
    // The column's UTF-8 bytes, valid until the next step: for comparing without decoding.
    QByteArrayView bytes(int column) const;
    std::optional<qint64> optionalInt64(int column) const;
    std::optional<double> optionalReal(int column) const;

private:
    void fail(int code);

    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_stmt = nullptr;
    bool m_ok = false;
    QString m_error;
};

} // namespace kiln
