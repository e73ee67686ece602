#include "candidateprofiler.h"

#include "engine/profile/nsightcommand.h"
#include "engine/profile/nsightmetrics.h"
#include "verifier/verifier.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>

namespace kiln {

namespace {

QString tail(const QString &path, int characters)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).trimmed().right(characters);
}

QString driverVersion()
{
    QFile version(QStringLiteral("/proc/driver/nvidia/version"));
    if (!version.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(version.readLine()).trimmed();
}

} // namespace

CandidateProfiler::CandidateProfiler(VerifierOptions options) : m_options(std::move(options)) {}

QString CandidateProfiler::unavailable(Backend backend)
{
    if (backend != Backend::Cuda)
        return QStringLiteral("Kiln has no hardware profiler for the %1 backend")
            .arg(backendName(backend));
    if (NsightCommand::locate().isEmpty())
        return QStringLiteral("Nsight Compute (ncu) is missing (not on PATH, not in "
                              "/usr/local/cuda/bin, no KILN_NCU)");
    return NsightCommand::permissionProblem();
}

ProfileRecord CandidateProfiler::profile(const Task &task, Backend backend, const QString &source,
                                         quint64 secret, const QString &subject,
                                         const QString &reportBase,
                                         const std::atomic<bool> &cancel) const
{
    ProfileRecord record;
    record.subject = subject;
    record.reason = unavailable(backend);
    if (!record.reason.isEmpty())
        return record;
    const QString ncu = NsightCommand::locate();
    VerifierOptions options = m_options;
    options.cudaProfiler = NsightCommand::collect(ncu, reportBase);
    options.cudaProfilerFolder = NsightCommand::installFolder(ncu);
    options.cudaProfiling = false; // KILN_PROFILE_SANDBOX's unconfined mode is for benchmarks

    options.cudaSpareSandboxes = 0;
    options.cudaSlotsPerGpu = 1;
    // Each profiled launch is replayed once per pass of metrics: calls take many times longer.
    options.startTimeoutMs *= 6;
    options.cudaCallTimeoutMs *= 30;
    QFile::remove(reportBase + QStringLiteral(".ncu-rep"));
    EvaluationResult evaluation;
    {
        // Its end stops the profiled process, and ncu writes the report as that ends.
        Verifier verifier(options);
        evaluation = verifier.evaluate(task, Backend::Cuda, source, secret, cancel);
    }
    const StageResult *timing = evaluation.stage(QStringLiteral("timing"));
    record.fingerprint = fingerprint(ncu, timing ? timing->data : QJsonObject());
    // The sandbox's own word on its confinement ("... seccomp=1 PROFILED ...").
    if (const StageResult *verdict = evaluation.stage(QStringLiteral("verdict")))
        record.fingerprint.insert(QStringLiteral("isolation"),
                                  verdict->data.value(QStringLiteral("isolation")));
    if (!QFileInfo::exists(reportBase + QStringLiteral(".ncu-rep"))) {
        const QString log = tail(reportBase + QStringLiteral(".log"), 600);
        record.reason = QStringLiteral("ncu wrote no report (the run under it: %1: %2)%3")
                            .arg(verdictName(evaluation.verdict), evaluation.summary.left(300),
                                 log.isEmpty() ? QString() : QStringLiteral("; ncu said: ") + log);
        return record;
    }
    return read(record, ncu, reportBase);
}

ProfileRecord CandidateProfiler::read(ProfileRecord record, const QString &ncu,
                                      const QString &reportBase) const
{
    const QString report = reportBase + QStringLiteral(".ncu-rep");
    QProcess import;
    import.start(ncu, NsightCommand::import(report));
    if (!import.waitForFinished(120000) || import.exitCode() != 0) {
        import.kill();
        record.reason = QStringLiteral("ncu could not read its report back: %1")
                            .arg(QString::fromUtf8(import.readAllStandardError()).trimmed());
        return record;
    }
    QString error;
    const QList<NsightMetrics::Launch> launches =
        NsightMetrics::parse(QString::fromUtf8(import.readAllStandardOutput()), &error);
    if (launches.isEmpty()) {
        record.reason = error;
        return record;
    }
    record.ok = true;
    record.reportPath = report;
    record.metrics = NsightMetrics::summarise(launches);
    return record;
}

void CandidateProfiler::compareWithVerifier(ProfileRecord &record, double verifierMedianMs)
{
    const double ncuMs = record.metrics.value(QStringLiteral("duration_ms")).toDouble();
    if (!record.ok || verifierMedianMs <= 0.0 || ncuMs <= 0.0)
        return;
    record.metrics.insert(QStringLiteral("verifier_ms"), verifierMedianMs);
    record.metrics.insert(QStringLiteral("difference_pct"),
                          (verifierMedianMs - ncuMs) / ncuMs * 100.0);
}

QJsonObject CandidateProfiler::fingerprint(const QString &ncu, const QJsonObject &timing)
{
    QJsonObject print = NsightCommand::settings();
    print.insert(QStringLiteral("ncu"), ncu);
    print.insert(QStringLiteral("ncu_version"), NsightCommand::version(ncu));
    print.insert(QStringLiteral("driver"), driverVersion());
    if (timing.contains(QStringLiteral("device"))) {
        print.insert(QStringLiteral("gpu"), timing.value(QStringLiteral("device")));
        print.insert(QStringLiteral("gpu_index"), timing.value(QStringLiteral("device_index")));
    }
    print.insert(QStringLiteral("clocks"),
                 QStringLiteral("as the driver set them (not locked: --clock-control none)"));
    return print;
}

} // namespace kiln
