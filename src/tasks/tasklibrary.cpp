#include "tasks/tasklibrary.h"

#include "core/installlayout.h"
#include "tasks/taskloader.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

// Q_INIT_RESOURCE must be called outside any namespace; a static library's resources are not
// registered unless something references them.
static void initTaskResources()
{
    Q_INIT_RESOURCE(kiln_tasks_data);
}

namespace kiln {

TaskLibrary TaskLibrary::standard(const QStringList &extraDirectories)
{
    TaskLibrary library;
    library.loadEmbedded();
    library.loadSystemDirectories();
    library.loadUserDirectory();
    for (const QString &directory : extraDirectories)
        library.loadDirectory(directory);
    return library;
}

QString TaskLibrary::userTasksDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/kiln/tasks");
}

void TaskLibrary::loadEmbedded()
{
    initTaskResources();
    loadDirectory(embeddedTasksDirectory());
}

QStringList TaskLibrary::systemTasksDirectories()
{
    QStringList candidates{InstallLayout::besideExecutable(QStringLiteral(KILN_TASK_FROM_BIN))};
    for (const QString &base :
         QStandardPaths::standardLocations(QStandardPaths::GenericDataLocation))
        candidates.append(QDir::cleanPath(base + QStringLiteral("/kiln/tasks")));
    const QString user = QDir::cleanPath(userTasksDirectory());
    QStringList found;
    for (const QString &directory : std::as_const(candidates)) {
        if (directory != user && !found.contains(directory) && QFileInfo(directory).isDir())
            found.append(directory);
    }
    return found;
}

void TaskLibrary::loadSystemDirectories()
{
    for (const QString &directory : systemTasksDirectories())
        loadDirectory(directory, false);
}

void TaskLibrary::loadUserDirectory()
{
    // The user folder is optional: its absence is not an error.
    const QString directory = userTasksDirectory();
    if (QFileInfo(directory).isDir())
        loadDirectory(directory);
}

int TaskLibrary::loadDirectory(const QString &directory, bool replaceExisting)
{
    int loaded = 0;
    const QFileInfo info(directory);
    if (!info.isDir()) {
        m_errors.append(TaskLoadError{directory, QStringLiteral("(directory)"),
                                      QStringLiteral("not a directory")});
        return 0;
    }
    if (QFileInfo(directory + QStringLiteral("/task.json")).exists()) {
        loadTaskFolder(directory, replaceExisting, loaded);
        return loaded;
    }
    const QDir dir(directory);
    const QStringList folders = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &folder : folders) {
        // tasks/kernelbench holds the offline policy's variant spaces of KernelBench problems,
        // which are imported from a checkout, not tasks of their own.
        if (folder == QLatin1String("kernelbench") &&
            !QFileInfo::exists(dir.filePath(folder) + QStringLiteral("/task.json")))
            continue;
        loadTaskFolder(dir.filePath(folder), replaceExisting, loaded);
    }
    return loaded;
}

void TaskLibrary::loadTaskFolder(const QString &folder, bool replaceExisting, int &loaded)
{
    if (!replaceExisting && m_tasks.contains(QFileInfo(folder).fileName()))
        return;
    const TaskLoader::Result result = TaskLoader::load(folder);
    if (!result.ok()) {
        m_errors.append(result.errors);
        return;
    }
    addTask(*result.task);
    ++loaded;
}

void TaskLibrary::addTask(const Task &task)
{
    m_tasks.insert(task.name, task);
}

const Task *TaskLibrary::task(const QString &name) const
{
    const auto it = m_tasks.constFind(name);
    return it == m_tasks.constEnd() ? nullptr : &it.value();
}

QStringList TaskLibrary::errorStrings() const
{
    QStringList strings;
    for (const TaskLoadError &error : m_errors)
        strings.append(error.toString());
    return strings;
}

} // namespace kiln
