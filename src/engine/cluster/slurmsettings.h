#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace kiln {

// Where and how a run's evaluations go to a Slurm cluster (`kiln-cli run --executor slurm`):
// what sbatch is asked for each worker job, how many such jobs at most, and the spool folder on
// a filesystem that the submitting host and the nodes share. Stored with the run.
struct SlurmSettings
{
    QString partition;
    QString account;   // empty: the user's default account
    QString timeLimit; // sbatch --time, e.g. "30:00"; empty: the partition's default
    int gpus = 0;      // --gres=gpu:N for each worker job; 0 asks for none
    int maxJobs = 4;   // worker jobs queued or running at once
    int cpusPerJob = 2;
    QString spool; // shared folder for work items and results; empty: beside the database
    // How long a worker job waits with nothing to do before it ends (its allocation is freed).
    int idleExitSeconds = 60;

    // The sbatch options for one worker job named `jobName` (no script, no --output).
    QStringList sbatchOptions(const QString &jobName) const;
    // Why these settings cannot submit ("" when they can): a partition is required.
    QString problem() const;

    QJsonObject toJson() const;
    static SlurmSettings fromJson(const QJsonObject &object);
};

} // namespace kiln
