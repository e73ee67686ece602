#include "engine/cluster/slurmsettings.h"

namespace kiln {

QStringList SlurmSettings::sbatchOptions(const QString &jobName) const
{
    QStringList options{QStringLiteral("--parsable"),
                        QStringLiteral("--job-name=") + jobName,
                        QStringLiteral("--partition=") + partition,
                        QStringLiteral("--nodes=1"),
                        QStringLiteral("--ntasks=1"),
                        QStringLiteral("--cpus-per-task=%1").arg(std::max(1, cpusPerJob))};
    if (!account.isEmpty())
        options << QStringLiteral("--account=") + account;
    if (!timeLimit.isEmpty())
        options << QStringLiteral("--time=") + timeLimit;
    if (gpus > 0)
        options << QStringLiteral("--gres=gpu:%1").arg(gpus);
    return options;
}

QString SlurmSettings::problem() const
{
    if (partition.isEmpty())
        return QStringLiteral("--executor slurm needs --slurm-partition P");
    if (gpus < 0)
        return QStringLiteral("--slurm-gpus must be 0 or more");
    if (maxJobs < 1)
        return QStringLiteral("--slurm-max-jobs must be a positive integer");
    return {};
}

QJsonObject SlurmSettings::toJson() const
{
    return {
        {QStringLiteral("partition"), partition}, {QStringLiteral("account"), account},
        {QStringLiteral("time"), timeLimit},      {QStringLiteral("gpus"), gpus},
        {QStringLiteral("max_jobs"), maxJobs},    {QStringLiteral("cpus_per_job"), cpusPerJob},
        {QStringLiteral("spool"), spool},         {QStringLiteral("idle_exit_s"), idleExitSeconds}};
}

SlurmSettings SlurmSettings::fromJson(const QJsonObject &o)
{
    SlurmSettings s;
    s.partition = o.value(QStringLiteral("partition")).toString();
    s.account = o.value(QStringLiteral("account")).toString();
    s.timeLimit = o.value(QStringLiteral("time")).toString();
    s.gpus = o.value(QStringLiteral("gpus")).toInt(s.gpus);
    s.maxJobs = o.value(QStringLiteral("max_jobs")).toInt(s.maxJobs);
    s.cpusPerJob = o.value(QStringLiteral("cpus_per_job")).toInt(s.cpusPerJob);
    s.spool = o.value(QStringLiteral("spool")).toString();
    s.idleExitSeconds = o.value(QStringLiteral("idle_exit_s")).toInt(s.idleExitSeconds);
    return s;
}

} // namespace kiln
