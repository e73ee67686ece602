#include "models/rules/databasechoice.h"

#include <QDir>
#include <QStandardPaths>

namespace kiln {

QString DatabaseChoice::defaultWorkspace(const QString &openDatabase)
{
    if (!openDatabase.isEmpty())
        return openDatabase;
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(folder);
    return QDir(folder).filePath(QStringLiteral("workspace.db"));
}

QString DatabaseChoice::forLauncher(const QString &remembered, const QString &openDatabase)
{
    if (!openDatabase.isEmpty() || remembered.isEmpty())
        return defaultWorkspace(openDatabase);
    return remembered;
}

QString DatabaseChoice::forRunArguments(const QString &named, const QString &windowDatabase)
{
    if (!named.isEmpty())
        return named;
    if (!windowDatabase.isEmpty())
        return windowDatabase;
    return QStringLiteral("kiln.db");
}

} // namespace kiln
