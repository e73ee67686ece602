#pragma once

#include <QStringList>

class QSettings;

namespace kiln {

// The workspace databases opened lately, newest first, for the start page and File ▸ Open
// recent: at most kKept, each once, and only files that still exist.
class RecentDatabases
{
public:
    static constexpr int kKept = 8;

    static QStringList load(const QSettings &settings);
    // `path` first, the others after it; saved.
    static void remember(QSettings &settings, const QString &path);
    // The same rule without settings: `path` first in `list`, duplicates and extras dropped.
    static QStringList withFirst(const QStringList &list, const QString &path);
};

} // namespace kiln
