#pragma once

#include "tasks/task.h"
#include "tasks/taskloaderror.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace kiln {

// All tasks available to a session: the embedded core tasks (":/tasks"), then the installed
// system folders (which add tasks but never replace one: an older installed copy of a core
// task must not shadow the one built in), then the per-user folder, then --tasks-dir folders;
// from there on a later task with the same name replaces an earlier one. A broken task folder
// is reported in errors() and skipped; it never hides the others.
class TaskLibrary
{
public:
    TaskLibrary() = default;

    // The standard search order: embedded, system folders, user folder, then
    // `extraDirectories` in order.
    static TaskLibrary standard(const QStringList &extraDirectories = {});
    // ~/.local/share/kiln/tasks on Linux (GenericDataLocation + "/kiln/tasks").
    static QString userTasksDirectory();
    static QString embeddedTasksDirectory() { return QStringLiteral(":/tasks"); }
    // Existing folders among share/kiln/tasks beside the installed executable and kiln/tasks
    // under each XDG data directory (/usr/local/share, /usr/share), the user's own excluded.
    static QStringList systemTasksDirectories();

    void loadEmbedded();
    void loadSystemDirectories();
    void loadUserDirectory();
    // A folder of task folders, or a single task folder (one holding task.json). Returns the
    // number of tasks loaded from it. A missing directory counts as an error. Without
    // replaceExisting, a task whose name is already known is skipped.
    int loadDirectory(const QString &directory, bool replaceExisting = true);
    void addTask(const Task &task); // replaces a task of the same name

    bool contains(const QString &name) const { return m_tasks.contains(name); }
    const Task *task(const QString &name) const;         // nullptr when unknown
    QStringList names() const { return m_tasks.keys(); } // sorted
    QList<Task> tasks() const { return m_tasks.values(); }
    QList<TaskLoadError> errors() const { return m_errors; }
    QStringList errorStrings() const;

private:
    void loadTaskFolder(const QString &folder, bool replaceExisting, int &loaded);

    QMap<QString, Task> m_tasks;
    QList<TaskLoadError> m_errors;
};

} // namespace kiln
