#include "nsightcommand.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QStandardPaths>

namespace kiln {

namespace {

// Sections shown in ncu's own window (the report stays useful there) and read back here.
const QStringList &sections()
{
    static const QStringList names{QStringLiteral("SpeedOfLight"), QStringLiteral("Occupancy"),
                                   QStringLiteral("LaunchStats"), QStringLiteral("WarpStateStats"),
                                   QStringLiteral("MemoryWorkloadAnalysis")};
    return names;
}

// Metrics named even where a section has them: the summary needs each by its raw name.
const QStringList &metrics()
{
    static const QStringList names{
        QStringLiteral("gpu__time_duration.sum"),
        QStringLiteral("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        QStringLiteral("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
        QStringLiteral("sm__warps_active.avg.pct_of_peak_sustained_active"),
        QStringLiteral("dram__bytes_read.sum"),
        QStringLiteral("dram__bytes_write.sum"),
        QStringLiteral("launch__registers_per_thread"),
        QStringLiteral("launch__shared_mem_per_block_static"),
        QStringLiteral("launch__shared_mem_per_block_dynamic"),
        QStringLiteral("launch__grid_size"),
        QStringLiteral("launch__block_size")};
    return names;
}

} // namespace

QString NsightCommand::locate()
{
    const QString configured = qEnvironmentVariable("KILN_NCU");
    if (!configured.isEmpty())
        return QFileInfo(configured).isExecutable() ? configured : QString();
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("ncu"));
    if (!onPath.isEmpty())
        return onPath;
    const QString toolkit = QStringLiteral("/usr/local/cuda/bin/ncu");
    return QFileInfo(toolkit).isExecutable() ? toolkit : QString();
}

QString NsightCommand::installFolder(const QString &ncu)
{
    // ncu's folder holds target/ (the libraries injected into the profiled process). A ncu
    // reached through a link or a wrapper script elsewhere (the toolkit's bin/) has its folder
    // beside the toolkit: nsight-compute-<version>/. Nothing else is made readable.
    const QDir own = QFileInfo(QFileInfo(ncu).canonicalFilePath()).absoluteDir();
    if (own.exists(QStringLiteral("target")))
        return own.absolutePath();
    QDir toolkit = QFileInfo(ncu).absoluteDir();
    toolkit.cdUp();
    for (const QString &name : toolkit.entryList({QStringLiteral("nsight-compute*")}, QDir::Dirs,
                                                 QDir::Name | QDir::Reversed))
        if (QDir(toolkit.filePath(name)).exists(QStringLiteral("target")))
            return QDir(toolkit.filePath(name)).canonicalPath();
    return {};
}

QStringList NsightCommand::collect(const QString &ncu, const QString &reportBase)
{
    // Clocks as the verifier times (not locked to base) and caches flushed before each
    // profiled launch, as the verifier flushes L2 before each timed call: durations compare.
    QStringList command{ncu,
                        QStringLiteral("--target-processes"),
                        QStringLiteral("application-only"),
                        QStringLiteral("--clock-control"),
                        QStringLiteral("none"),
                        QStringLiteral("--cache-control"),
                        QStringLiteral("all"),
                        QStringLiteral("--launch-count"),
                        QString::number(kLaunchCount)};
    for (const QString &section : sections())
        command << QStringLiteral("--section") << section;
    command << QStringLiteral("--metrics") << metrics().join(QLatin1Char(','))
            << QStringLiteral("--export") << reportBase << QStringLiteral("--force-overwrite")
            << QStringLiteral("--log-file") << reportBase + QStringLiteral(".log");
    return command;
}

QStringList NsightCommand::import(const QString &report)
{
    return {QStringLiteral("--import"), report,
            QStringLiteral("--csv"),    QStringLiteral("--page"),
            QStringLiteral("raw"),      QStringLiteral("--print-units"),
            QStringLiteral("base")};
}

QString NsightCommand::version(const QString &ncu)
{
    QProcess process;
    process.start(ncu, {QStringLiteral("--version")});
    if (!process.waitForFinished(10000)) {
        process.kill();
        process.waitForFinished(1000);
        return {};
    }
    const QStringList lines = QString::fromUtf8(process.readAllStandardOutput())
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last().trimmed();
}

QJsonObject NsightCommand::settings()
{
    return {{QStringLiteral("sections"), QJsonArray::fromStringList(sections())},
            {QStringLiteral("metrics"), QJsonArray::fromStringList(metrics())},
            {QStringLiteral("clock_control"), QStringLiteral("none")},
            {QStringLiteral("cache_control"), QStringLiteral("all")},
            {QStringLiteral("launch_count"), kLaunchCount}};
}

QString NsightCommand::permissionProblem()
{
    QFile parameters(QStringLiteral("/proc/driver/nvidia/params"));
    if (!parameters.open(QIODevice::ReadOnly))
        return {};
    // Root does not help: the profiled candidate runs in a user namespace, without the host's
    // capabilities, so that model-written code never holds an administrator's rights.
    for (const QByteArray &line : parameters.readAll().split('\n'))
        if (line.trimmed() == "RmProfilingAdminOnly: 1")
            return QStringLiteral(
                "the NVIDIA driver lets only administrators read the GPU's performance counters "
                "(RmProfilingAdminOnly: 1), and Kiln does not give a candidate an "
                "administrator's rights to profile it: set the nvidia module's option "
                "NVreg_RestrictProfilingToAdminUsers=0 and reload the module");
    return {};
}

} // namespace kiln
