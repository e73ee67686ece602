#pragma once

// A workspace database with a valid header and damaged pages, as a disk or a copy gone wrong
// leaves one: the tests of the store, kiln-cli and the window refuse it.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace kiln::test {

// Fills the second half of the file's pages (never page 1, the header and the schema) with a
// pattern no b-tree page has, so the header and the list of tables still read. The file must
// have been closed cleanly (no -wal beside it). False when it is too small to damage so.
inline bool damageDatabase(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadWrite))
        return false;
    const QByteArray header = file.read(100);
    if (header.size() < 100)
        return false;
    int pageSize = (quint8(header[16]) << 8) | quint8(header[17]);
    if (pageSize == 1)
        pageSize = 65536;
    const qint64 pages = file.size() / pageSize;
    if (pages < 4)
        return false;
    for (qint64 page = pages / 2; page < pages; ++page) {
        file.seek(page * pageSize);
        file.write(QByteArray(pageSize, '\x5a'));
    }
    return true;
}

} // namespace kiln::test
