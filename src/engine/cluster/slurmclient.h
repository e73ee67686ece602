#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// Slurm's own commands, run as processes: sbatch to submit, squeue for the jobs still known to
// the controller, sacct (or, where accounting is off, scontrol) for how a finished job ended,
// scancel to stop. Kiln schedules nothing itself.
class SlurmClient
{
public:
    struct JobState
    {
        QString state; // PENDING, RUNNING, COMPLETED, CANCELLED, NODE_FAIL, PREEMPTED, ...
        QString node;  // empty while pending
        QString reason;
    };

    // The job id, or nothing with *error (sbatch's own message).
    static std::optional<QString> submit(const QStringList &options, const QString &script,
                                         QString *error);
    // Whether sbatch would accept these options (sbatch --test-only): a wrong partition,
    // account or gres is found before a run starts.
    static bool test(const QStringList &options, const QString &script, QString *error);
    // The state of each job that squeue still lists (missing ones have left the queue);
    // nothing when squeue itself failed.
    static std::optional<QMap<QString, JobState>> queue(const QStringList &jobs, QString *error);
    // How a job that left the queue ended (sacct; scontrol when accounting is disabled).
    static JobState finalState(const QString &job);
    static void cancel(const QStringList &jobs);
    // Every job of this user with that name (scancel --me --name).
    static void cancelByName(const QString &name);
    // Whether a state means the job's processes may still run.
    static bool alive(const QString &state);
    static bool running(const QString &state) { return state == QLatin1String("RUNNING"); }

private:
    static bool runTool(const QString &program, const QStringList &arguments, QByteArray *out,
                        QString *error, int timeoutMs = 30000);
};

} // namespace kiln
