#pragma once

#include "engine/cluster/workitem.h"
#include "engine/cluster/workresult.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

struct Task;

// The folder through which one engine session and its cluster workers exchange work, on a
// filesystem both see (docs/cluster.md). Every hand-over is one rename(2) within the folder, so
// a reader never sees half a file and a work item has exactly one holder:
//   incoming/ID.json         posted by the engine, not yet taken
//   claimed/WORKER/ID.json   taken by WORKER (a Slurm job id), being evaluated
//   done/ID.json             the worker's result, collected (and removed) by the engine
//   tasks/NAME/              the task files the workers load
//   cache/                   the workers' compile cache (compiled candidates and references)
// No SQLite: the database stays with the engine.
class SpoolDirectory
{
public:
    explicit SpoolDirectory(QString root);
    const QString &root() const { return m_root; }
    QString path(const QString &relative) const;

    // Creates the folders (mode 0700: work items hold the verifier's secret).
    bool prepare(QString *error) const;
    // Copies a task's files (embedded ones included) into tasks/NAME, once.
    bool publishTask(const Task &task, QString *error) const;

    // Engine side.
    bool post(const WorkItem &item, QString *error) const;
    bool withdraw(const QString &id) const; // an item not taken yet; false when it was taken
    QStringList workers() const;            // names with a claimed/ folder
    QStringList claimedBy(const QString &worker) const; // item ids
    // Puts a claimed item back in incoming/ (its worker is gone); false when it is not there.
    bool requeue(const QString &worker, const QString &id) const;
    bool hasResult(const QString &id) const;
    // Every result in done/, removed from the folder as it is read. Unreadable files are
    // removed too, named in *problems, and their item ids (the file names) put in *unreadable.
    QList<WorkResult> takeResults(QStringList *problems, QStringList *unreadable) const;
    // Removes a claim outright (its item is not wanted any more).
    void drop(const QString &worker, const QString &id) const;
    // Whether WORKER got as far as its first claim attempt (its claimed/ folder exists): a job
    // that ends without it never became a worker.
    bool hasStarted(const QString &worker) const;
    void requestStop() const; // workers finish their item and end
    int incomingCount() const;

    // Worker side.
    bool stopRequested() const;
    // False once the session folder is gone (the engine ended and cleaned up).
    bool exists() const;
    // Creates claimed/WORKER: the worker is set up and taking work.
    bool markStarted(const QString &worker, QString *error) const;
    // Takes the oldest item not taken yet; nothing when incoming/ is empty. An item that cannot
    // be read is answered with an error result (so its evaluation does not wait forever) and
    // named in *error.
    std::optional<WorkItem> claim(const QString &worker, QString *error) const;
    bool complete(const QString &worker, const WorkResult &result, QString *error) const;
    // A worker that starts again under the same name (a requeued job) returns what it held.
    int releaseClaims(const QString &worker) const;

private:
    bool writeAtomically(const QString &relative, const QByteArray &bytes, QString *error) const;
    static bool moveFile(const QString &from, const QString &to);

    QString m_root;
};

} // namespace kiln
