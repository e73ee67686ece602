#pragma once

#include <QList>
#include <QtGlobal>

namespace kiln {

// The workspace database schema as an ordered list of migrations. Step i brings a database from
// user_version i to i + 1; it runs inside one transaction together with the version bump, so a
// crash leaves either the old or the new version, never a mix.
struct SchemaMigration
{
    int version = 0;           // user_version after this step
    const char *sql = nullptr; // one or more statements
    // The step rebuilds a table others reference (SQLite cannot change a CHECK in place): it
    // runs with foreign keys off, or dropping the old table would cascade into its children,
    // and the keys are checked before it commits.
    bool rebuildsTables = false;
};

namespace storeschema {

// PRAGMA application_id of every Kiln workspace database ("KILN").
constexpr qint32 applicationId = 0x4B494C4E;

const QList<SchemaMigration> &migrations();
int currentVersion();

} // namespace storeschema

} // namespace kiln
