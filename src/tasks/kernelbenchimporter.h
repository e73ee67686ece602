#pragma once

#include "tasks/task.h"

#include <QList>
#include <QMap>
#include <QString>

namespace kiln {

// Turns the problem files of a KernelBench checkout (KernelBench/level1/19_ReLU.py ...) into
// Kiln task folders that keep the Python source as the reference. A malformed problem file is
// reported and skipped; the import goes on.
class KernelBenchImporter
{
public:
    struct Imported
    {
        QString task;
        QString file; // relative to the level's parent, e.g. "level1/19_ReLU.py"
        int level = 0;
    };
    struct Skipped
    {
        QString file;
        QString reason;
    };
    struct Report
    {
        QList<Imported> imported;
        QList<Skipped> skipped;
        QString error; // nothing could be imported at all (no level folders, unwritable output)
    };

    // The level folders below a checkout: <root>/KernelBench/levelN or <root>/levelN.
    static QMap<int, QString> levelFolders(const QString &checkout);
    // syntaxErrors: file path -> why Python cannot parse it (checked by the caller's python3).
    static Report run(const QString &checkout, const QString &outDirectory,
                      const QList<int> &levels, const Tolerance &tolerance,
                      const QMap<QString, QString> &syntaxErrors);
    // Every problem file that run() would read (for the caller's syntax check).
    static QStringList problemFiles(const QString &checkout, const QList<int> &levels);

private:
    static std::optional<Skipped> importOne(const QString &path, int level, const QString &outDir,
                                            const Tolerance &tolerance, Imported *imported);
};

} // namespace kiln
