#include "models/rules/recentdatabases.h"

#include <QFileInfo>
#include <QSettings>

namespace kiln {

namespace {

const QString kKey = QStringLiteral("recentDatabases");

} // namespace

QStringList RecentDatabases::load(const QSettings &settings)
{
    QStringList kept;
    for (const QString &path : settings.value(kKey).toStringList())
        if (QFileInfo::exists(path) && !kept.contains(path) && kept.size() < kKept)
            kept << path;
    return kept;
}

void RecentDatabases::remember(QSettings &settings, const QString &path)
{
    settings.setValue(kKey, withFirst(load(settings), path));
}

QStringList RecentDatabases::withFirst(const QStringList &list, const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList out{absolute};
    for (const QString &p : list)
        if (p != absolute && out.size() < kKept)
            out << p;
    return out;
}

} // namespace kiln
