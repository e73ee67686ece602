#pragma once

#include "engine/cluster/spooldirectory.h"
#include "tasks/tasklibrary.h"

#include <QString>
#include <atomic>
#include <memory>

namespace kiln {

class Verifier;

// The node's half of the cluster executor (`kiln-cli worker`): takes work items from a spool
// session one at a time, judges each with this node's verifier (its sandboxes, its CPU or GPU)
// and puts back the result with the node's name. It ends when the session asks it to, when it
// has had nothing to do for idleExitSeconds, or when `stop` is set (SIGTERM from scancel): an
// item it holds then stays claimed, and the engine gives it to another worker.
class SpoolWorker
{
public:
    SpoolWorker(SpoolDirectory spool, QString name, int idleExitSeconds);
    ~SpoolWorker();

    // Returns the number of items judged, or -1 with *error when the spool is unusable.
    int run(const std::atomic<bool> &stop, QString *error);

    // The worker's name inside Slurm: SLURM_JOB_ID (the engine matches claims to jobs by it).
    static QString defaultName();

private:
    std::optional<WorkResult> judge(const WorkItem &item, const std::atomic<bool> &stop);
    const Task *task(const QString &name);
    Verifier &verifier(bool lenient);

    SpoolDirectory m_spool;
    QString m_name;
    int m_idleExitSeconds;
    TaskLibrary m_tasks;
    std::unique_ptr<Verifier> m_strict;
    std::unique_ptr<Verifier> m_lenient;
};

} // namespace kiln
