#include "cudasandboxslot.h"

#include <QElapsedTimer>
#include <QThread>

namespace kiln {

CudaSandboxSlot::CudaSandboxSlot(const VerifierOptions &options, CudaDevice device)
    : m_options(options), m_device(std::move(device)), m_userNamespace(options.cudaUserNamespace)
{
}

CudaSandboxSlot::~CudaSandboxSlot()
{
    stop(m_candidates);
    stop(m_baselines);
}

void CudaSandboxSlot::stop(Process &process)
{
    if (!process.process)
        return;
    process.process->request("quit", 500);
    // A profiler wrapped around the sandbox writes its results as the sandbox ends.
    QElapsedTimer timer;
    timer.start();
    while (m_options.cudaProfiling && process.process->running() && timer.elapsed() < 60000)
        QThread::msleep(50);
    process.process->kill();
    process.process.reset();
    process.work.reset();
}

SandboxSettings CudaSandboxSlot::settings(const VerifierOptions &options,
                                          const QStringList &arguments)
{
    SandboxSettings settings = options.sandbox;
    settings.executable = options.cudaSandbox;
    settings.addressSpaceMb = 0;
    settings.extraArguments = arguments;
    settings.profiling = options.cudaProfiling;
    if (settings.profiling)
        settings.extraArguments << QStringLiteral("--profiling");
    // The process outlives many evaluations, and waiting on the GPU spins a core: the CPU limit
    // is a lifetime allowance of one evaluation's limit per evaluation (ensureStarted restarts
    // the process before an evaluation could run into it).
    settings.cpuSeconds = options.sandbox.cpuSeconds * qMax(1, options.cudaEvaluationsPerSandbox);
    return settings;
}

void CudaSandboxSlot::restart()
{
    if (m_candidates.process)
        m_candidates.process->kill();
    m_candidates.process.reset();
    m_candidates.work.reset();
    m_evaluations = 0;
    ++m_restarts;
}

void CudaSandboxSlot::restartBaseline()
{
    if (m_baselines.process)
        m_baselines.process->kill();
    m_baselines.process.reset();
    m_baselines.work.reset();
    loadedReference.clear();
    loadedLibrary.clear();
}

bool CudaSandboxSlot::start(Process &into, QString *error)
{
    for (int attempt = 0; attempt < 2; ++attempt) {
        into.work = std::make_unique<QTemporaryDir>(m_options.workRoot +
                                                    QStringLiteral("/kiln-cuda-XXXXXX"));
        into.process = std::make_unique<SandboxProcess>(
            settings(m_options, {QStringLiteral("--device"), QString::number(m_device.index),
                                 QStringLiteral("--userns"),
                                 m_userNamespace ? QStringLiteral("1") : QStringLiteral("0")}));
        if (into.work->isValid() &&
            into.process->start(into.work->path(), 1 << 20, m_options.startTimeoutMs * 3, error))
            return true;
        into.process.reset();
        // Some drivers refuse a context inside an unprivileged user namespace: try once
        // without it (the report then says userns=0).
        if (!m_userNamespace)
            break;
        m_userNamespace = false;
    }
    return false;
}

bool CudaSandboxSlot::ensureStarted(QString *error)
{
    // A fresh process before the count runs out, or before the lifetime CPU allowance could
    // end this evaluation with SIGKILL (which would read as the candidate's crash).
    // It may have ended between evaluations (killed from outside): that is not the next
    // candidate's doing.
    SandboxProcess *process = m_candidates.process.get();
    if (process && !process->running()) {
        qWarning("kiln: the GPU %d sandbox had ended between evaluations (%s); restarting",
                 m_device.index, qPrintable(process->describeEnd()));
        restart();
    } else if (process && (m_evaluations >= m_options.cudaEvaluationsPerSandbox ||
                           process->cpuSecondsUsed() + m_options.sandbox.cpuSeconds >
                               process->settings().cpuSeconds)) {
        restart();
    }
    return m_candidates.process || start(m_candidates, error);
}

bool CudaSandboxSlot::ensureBaselineStarted(QString *error)
{
    SandboxProcess *process = m_baselines.process.get();
    if (process &&
        (!process->running() ||
         process->cpuSecondsUsed() + m_options.sandbox.cpuSeconds > process->settings().cpuSeconds))
        restartBaseline();
    return m_baselines.process || start(m_baselines, error);
}

double CudaSandboxSlot::bandwidth(int timeoutMs)
{
    // Measured where no candidate code runs.
    SandboxProcess *process =
        m_baselines.process ? m_baselines.process.get() : m_candidates.process.get();
    if (m_bandwidth > 0.0 || !process)
        return m_bandwidth;
    const SandboxProcess::Reply reply = process->request("bandwidth 1073741824 10", timeoutMs);
    if (reply.status == SandboxProcess::Status::Ok)
        m_bandwidth = reply.words.value(0).toDouble();
    return m_bandwidth;
}

} // namespace kiln
