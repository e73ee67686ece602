#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <optional>

struct sqlite3;
struct sqlite3_stmt;

namespace kiln {

// A prepared statement that finalizes itself. Private to the store: nothing above it sees SQLite.
// Parameters are 1-based, columns 0-based, as in the C API. Times are stored as milliseconds since
// the epoch (UTC), JSON objects and arrays as compact JSON text.
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
    void bind(int index, const QDateTime &value);
    void bind(int index, const QJsonObject &value);
    void bind(int index, const QJsonArray &value);
    void bindNull(int index);
    // An empty optional binds NULL.
    template <typename Value> void bind(int index, const std::optional<Value> &value)
    {
        if (value)
            bind(index, *value);
        else
            bindNull(index);
    }
    // Binds values to ?1, ?2, ... in order, each by its type.
    template <typename... Values> void bindAll(const Values &...values)
    {
        int index = 0;
        (bind(++index, values), ...);
    }

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
    QDateTime dateTime(int column) const;
    QJsonObject jsonObject(int column) const; // a malformed value reads as an empty object
    QJsonArray jsonArray(int column) const;   // a malformed value reads as an empty array
    // Reads the columns first, first + 1, ... into fields, each by its type (an int or a bool
    // from an integer column), so that a row maps in the order its SELECT lists the columns.
    template <typename... Fields> void columns(int first, Fields &...fields) const
    {
        int column = first;
        (read(column++, fields), ...);
    }

private:
    void fail(int code);
    void bindJson(int index, const QJsonDocument &document);
    void read(int column, qint64 &value) const { value = int64(column); }
    void read(int column, int &value) const { value = int(int64(column)); }
    void read(int column, bool &value) const { value = int64(column) != 0; }
    void read(int column, double &value) const { value = real(column); }
    void read(int column, QString &value) const { value = text(column); }
    void read(int column, std::optional<qint64> &value) const { value = optionalInt64(column); }
    void read(int column, std::optional<double> &value) const { value = optionalReal(column); }
    void read(int column, QDateTime &value) const { value = dateTime(column); }
    void read(int column, QJsonObject &value) const { value = jsonObject(column); }

    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_stmt = nullptr;
    bool m_ok = false;
    QString m_error;
};

} // namespace kiln
