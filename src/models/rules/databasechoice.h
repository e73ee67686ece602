#pragma once

#include <QString>

namespace kiln {

// Which workspace database the window writes to when the user names none. `openDatabase` is the
// database the window shows (empty: none is open).
class DatabaseChoice
{
public:
    // The open database, else workspace.db in the application's data folder (which is made when
    // missing, and only then).
    static QString defaultWorkspace(const QString &openDatabase);
    // The launcher's: the open database, else the one remembered from the last launch, else the
    // default workspace.
    static QString forLauncher(const QString &remembered, const QString &openDatabase);
    // `kiln --new-run` and comparisons: the run's own --db, else the window's, else kiln.db in
    // the working folder (what `kiln-cli run` would use).
    static QString forRunArguments(const QString &named, const QString &windowDatabase);
};

} // namespace kiln
