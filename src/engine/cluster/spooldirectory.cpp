#include "engine/cluster/spooldirectory.h"

#include "tasks/task.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QUuid>
#include <cstdio>

namespace kiln {

namespace {

const QStringList kFolders{QStringLiteral("incoming"), QStringLiteral("claimed"),
                           QStringLiteral("done"),     QStringLiteral("tmp"),
                           QStringLiteral("tasks"),    QStringLiteral("logs"),
                           QStringLiteral("cache")};

QString itemFile(const QString &id)
{
    return id + QStringLiteral(".json");
}

// Ids in a folder, oldest first (names sort by the engine's counter).
QStringList idsIn(const QString &folder)
{
    QStringList ids;
    const QStringList names =
        QDir(folder).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &name : names)
        ids.append(name.chopped(5));
    return ids;
}

std::optional<QJsonObject> readObject(const QString &file, QString *error)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(file, f.errorString());
        return std::nullopt;
    }
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(f.readAll(), &parse);
    if (!document.isObject()) {
        *error = QStringLiteral("%1 is not a JSON object (%2)").arg(file, parse.errorString());
        return std::nullopt;
    }
    return document.object();
}

} // namespace

SpoolDirectory::SpoolDirectory(QString root) : m_root(std::move(root)) {}

QString SpoolDirectory::path(const QString &relative) const
{
    return QDir(m_root).filePath(relative);
}

bool SpoolDirectory::moveFile(const QString &from, const QString &to)
{
    // rename(2), never QFile::rename: that one copies when it cannot rename, which is not atomic.
    return std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0;
}

bool SpoolDirectory::prepare(QString *error) const
{
    for (const QString &folder : kFolders) {
        if (!QDir().mkpath(path(folder))) {
            *error = QStringLiteral("cannot create %1").arg(path(folder));
            return false;
        }
    }
    const auto ownerOnly = QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner;
    if (!QFile::setPermissions(m_root, ownerOnly)) {
        *error = QStringLiteral("cannot restrict %1 to its owner").arg(m_root);
        return false;
    }
    return true;
}

bool SpoolDirectory::publishTask(const Task &task, QString *error) const
{
    const QString target = path(QStringLiteral("tasks/") + task.name);
    if (QFileInfo::exists(target + QStringLiteral("/task.json")))
        return true;
    const QString staging =
        path(QStringLiteral("tmp/task-") + QUuid::createUuid().toString(QUuid::WithoutBraces));
    auto fail = [&](const QString &why) {
        QDir(staging).removeRecursively();
        *error = why;
        return false;
    };
    QDirIterator it(task.directory, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString copy =
            staging + QLatin1Char('/') + QDir(task.directory).relativeFilePath(file);
        if (!QDir().mkpath(QFileInfo(copy).path()) || !QFile::copy(file, copy))
            return fail(QStringLiteral("cannot copy %1 into the spool").arg(file));
    }
    if (!QFileInfo::exists(staging + QStringLiteral("/task.json")))
        return fail(
            QStringLiteral("task %1 has no task.json in %2").arg(task.name, task.directory));
    // Renamed in whole, so a worker that looks for the task never sees half of it.
    if (!moveFile(staging, target))
        return fail(QStringLiteral("cannot move task %1 into %2").arg(task.name, target));
    return true;
}

bool SpoolDirectory::writeAtomically(const QString &relative, const QByteArray &bytes,
                                     QString *error) const
{
    const QString staging =
        path(QStringLiteral("tmp/") + QUuid::createUuid().toString(QUuid::WithoutBraces));
    QFile file(staging);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.flush()) {
        *error = QStringLiteral("cannot write %1: %2").arg(staging, file.errorString());
        file.remove();
        return false;
    }
    file.close();
    if (!moveFile(staging, path(relative))) {
        *error = QStringLiteral("cannot rename %1 to %2").arg(staging, path(relative));
        QFile::remove(staging);
        return false;
    }
    return true;
}

bool SpoolDirectory::post(const WorkItem &item, QString *error) const
{
    return writeAtomically(QStringLiteral("incoming/") + itemFile(item.id),
                           QJsonDocument(item.toJson()).toJson(QJsonDocument::Compact), error);
}

bool SpoolDirectory::withdraw(const QString &id) const
{
    return QFile::remove(path(QStringLiteral("incoming/") + itemFile(id)));
}

QStringList SpoolDirectory::workers() const
{
    return QDir(path(QStringLiteral("claimed"))).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
}

QStringList SpoolDirectory::claimedBy(const QString &worker) const
{
    return idsIn(path(QStringLiteral("claimed/") + worker));
}

bool SpoolDirectory::requeue(const QString &worker, const QString &id) const
{
    return moveFile(path(QStringLiteral("claimed/%1/%2").arg(worker, itemFile(id))),
                    path(QStringLiteral("incoming/") + itemFile(id)));
}

bool SpoolDirectory::hasResult(const QString &id) const
{
    return QFileInfo::exists(path(QStringLiteral("done/") + itemFile(id)));
}

QList<WorkResult> SpoolDirectory::takeResults(QStringList *problems, QStringList *unreadable) const
{
    QList<WorkResult> results;
    for (const QString &id : idsIn(path(QStringLiteral("done")))) {
        const QString file = path(QStringLiteral("done/") + itemFile(id));
        QString error;
        std::optional<WorkResult> result;
        if (const std::optional<QJsonObject> object = readObject(file, &error))
            result = WorkResult::fromJson(*object, &error);
        QFile::remove(file);
        if (result && result->id == id) {
            results.append(*result);
        } else {
            problems->append(error.isEmpty() ? QStringLiteral("%1 names another item").arg(file)
                                             : error);
            unreadable->append(id);
        }
    }
    return results;
}

void SpoolDirectory::drop(const QString &worker, const QString &id) const
{
    QFile::remove(path(QStringLiteral("claimed/%1/%2").arg(worker, itemFile(id))));
}

bool SpoolDirectory::hasStarted(const QString &worker) const
{
    return QFileInfo(path(QStringLiteral("claimed/") + worker)).isDir();
}

bool SpoolDirectory::exists() const
{
    return QFileInfo(path(QStringLiteral("incoming"))).isDir();
}

bool SpoolDirectory::markStarted(const QString &worker, QString *error) const
{
    // mkdir, not mkpath: a session folder that was removed is not made again.
    const QString mine = path(QStringLiteral("claimed/") + worker);
    if (QFileInfo(mine).isDir() || QDir().mkdir(mine))
        return true;
    *error = QStringLiteral("cannot create %1 (is the spool on a filesystem this node shares?)")
                 .arg(mine);
    return false;
}

void SpoolDirectory::requestStop() const
{
    QFile stop(path(QStringLiteral("stop")));
    if (stop.open(QIODevice::WriteOnly))
        stop.close();
}

int SpoolDirectory::incomingCount() const
{
    return int(idsIn(path(QStringLiteral("incoming"))).size());
}

bool SpoolDirectory::stopRequested() const
{
    return QFileInfo::exists(path(QStringLiteral("stop")));
}

std::optional<WorkItem> SpoolDirectory::claim(const QString &worker, QString *error) const
{
    error->clear();
    if (!markStarted(worker, error))
        return std::nullopt;
    const QString mine = path(QStringLiteral("claimed/") + worker);
    for (const QString &id : idsIn(path(QStringLiteral("incoming")))) {
        const QString held = mine + QLatin1Char('/') + itemFile(id);
        // Whoever renames first holds it; the others find the file gone and try the next.
        if (!moveFile(path(QStringLiteral("incoming/") + itemFile(id)), held))
            continue;
        std::optional<WorkItem> item;
        if (const std::optional<QJsonObject> object = readObject(held, error))
            item = WorkItem::fromJson(*object, error);
        if (item && item->id == id)
            return item;
        // Unreadable: it can never be evaluated, by anyone. Its evaluation gets the reason.
        WorkResult failed;
        failed.id = id;
        failed.job = worker;
        failed.error = QStringLiteral("the work item could not be read on the node: ") + *error;
        QString ignored;
        if (!complete(worker, failed, &ignored))
            QFile::remove(held);
        return std::nullopt;
    }
    return std::nullopt;
}

bool SpoolDirectory::complete(const QString &worker, const WorkResult &result, QString *error) const
{
    // The result lands before the claim is dropped: an item is always in one of the two.
    if (!writeAtomically(QStringLiteral("done/") + itemFile(result.id),
                         QJsonDocument(result.toJson()).toJson(QJsonDocument::Compact), error))
        return false;
    QFile::remove(path(QStringLiteral("claimed/%1/%2").arg(worker, itemFile(result.id))));
    return true;
}

int SpoolDirectory::releaseClaims(const QString &worker) const
{
    int released = 0;
    for (const QString &id : claimedBy(worker))
        released += requeue(worker, id) ? 1 : 0;
    return released;
}

} // namespace kiln
