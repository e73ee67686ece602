#include "verifier/cuda/cudasandboxslot.h"

#include "verifier/harness/devicelock.h"

#include <QElapsedTimer>
#include <QThread>

namespace kiln {

CudaSandboxSlot::CudaSandboxSlot(const VerifierOptions &options, CudaDevice device)
    : m_options(options), m_device(std::move(device)), m_userNamespace(options.cudaUserNamespace)
{
}

CudaSandboxSlot::~CudaSandboxSlot()
{
    m_closing = true; // a start waiting for another process's timing gives up
    {
        std::lock_guard lock(m_spareMutex);
        m_stopping = true;
    }
    m_spareWanted.notify_all();
    if (m_starter.joinable())
        m_starter.join();
    for (Process &spare : m_spares)
        stop(spare);
    stop(m_candidates);
    stop(m_launcher);
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
    while (m_options.profilesCandidates() && process.process->running() && timer.elapsed() < 60000)
        QThread::msleep(50);
    process.process->kill();
    process.process.reset();
    process.work.reset();
}

SandboxSettings CudaSandboxSlot::settings(const VerifierOptions &options,
                                          const QStringList &arguments, Role role)
{
    SandboxSettings settings = options.sandbox;
    settings.executable = options.cudaSandbox;
    settings.addressSpaceMb = 0;
    settings.extraArguments = arguments;
    settings.profiling = options.cudaProfiling;
    if (settings.profiling)
        settings.extraArguments << QStringLiteral("--profiling");
    if (role == Role::Candidates && !options.cudaProfiler.isEmpty()) {
        settings.profilerCommand =
            QStringList{options.cudaSandbox, QStringLiteral("--private-network"),
                        QStringLiteral("--")} +
            options.cudaProfiler;
        settings.extraArguments << QStringLiteral("--profiled");
        if (!options.cudaProfilerFolder.isEmpty())
            settings.extraArguments << QStringLiteral("--readable") << options.cudaProfilerFolder;
    }
    // Waiting on the GPU spins a core. A candidates' process lives for one evaluation (plus its
    // start-up); the checker and the launcher outlive many, so their limit is a lifetime
    // allowance of one evaluation's limit per evaluation (withinAllowance: they are restarted
    // before an evaluation could run into it).
    const int evaluations = role == Role::Checker    ? options.cudaEvaluationsPerSandbox
                            : role == Role::Launcher ? options.cudaEvaluationsPerLauncher
                                                     : 0;
    settings.cpuSeconds = evaluations > 0 ? options.sandbox.cpuSeconds * evaluations
                                          : options.sandbox.cpuSeconds + 10;
    return settings;
}

// The background starter: a context takes 0.2-0.6 s to create, so it is created before the
// evaluation that needs it.
void CudaSandboxSlot::keepSparesReady()
{
    std::unique_lock lock(m_spareMutex);
    for (;;) {
        m_spareWanted.wait(lock, [this] {
            return m_stopping || (!m_quiet && int(m_spares.size()) < m_options.cudaSpareSandboxes &&
                                  (m_spares.empty() || !m_leased));
        });
        if (m_stopping)
            return;
        m_starting = true;
        lock.unlock();
        Process spare;
        QString error;
        const bool started = start(spare, Role::Candidates, &error);
        lock.lock();
        m_starting = false;
        m_spareWanted.notify_all();
        if (!started) {
            // Started on demand instead (ensureStarted reports why); try again later.
            m_spareWanted.wait_for(lock, std::chrono::seconds(2), [this] { return m_stopping; });
            continue;
        }
        m_spares.push_back(std::move(spare));
    }
}

bool CudaSandboxSlot::takeSpare()
{
    std::lock_guard lock(m_spareMutex);
    while (!m_spares.empty()) {
        Process spare = std::move(m_spares.front());
        m_spares.pop_front();
        if (spare.process && spare.process->running()) {
            m_candidates = std::move(spare);
            break;
        }
        stop(spare); // ended while it waited: not the next candidate's doing
    }
    m_spareWanted.notify_all();
    return m_candidates.process != nullptr;
}

double CudaSandboxSlot::beginQuiet()
{
    QElapsedTimer waited;
    waited.start();
    std::unique_lock lock(m_spareMutex);
    m_quiet = true;
    m_spareWanted.wait_for(lock, std::chrono::seconds(5), [this] { return !m_starting; });
    return waited.nsecsElapsed() / 1e6;
}

void CudaSandboxSlot::setLeased(bool leased)
{
    {
        std::lock_guard lock(m_spareMutex);
        m_leased = leased;
    }
    m_spareWanted.notify_all();
}

void CudaSandboxSlot::endQuiet()
{
    {
        std::lock_guard lock(m_spareMutex);
        m_quiet = false;
    }
    m_spareWanted.notify_all();
}

void CudaSandboxSlot::discard(Process &process)
{
    if (process.process)
        process.process->kill();
    process.process.reset();
    process.work.reset();
}

void CudaSandboxSlot::restart()
{
    discard(m_candidates);
}

void CudaSandboxSlot::restartLauncher()
{
    discard(m_launcher);
    m_launcherEvaluations = 0;
}

void CudaSandboxSlot::restartBaseline()
{
    discard(m_baselines);
    loadedReference.clear();
    loadedLibrary.clear();
}

bool CudaSandboxSlot::start(Process &into, Role role, QString *error)
{
    // A context coming up shows in a timing on the same GPU: no Kiln process times meanwhile.
    const DeviceLock starting(m_device.lockName(), DeviceLock::Mode::Shared, &m_closing);
    if (starting.cancelled()) {
        *error = QStringLiteral("the GPU's sandboxes are closing");
        return false;
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        const bool userNamespace = m_userNamespace.load();
        into.work = std::make_unique<QTemporaryDir>(m_options.workRoot +
                                                    QStringLiteral("/kiln-cuda-XXXXXX"));
        QStringList arguments{QStringLiteral("--device"), QString::number(m_device.index),
                              QStringLiteral("--userns"),
                              userNamespace ? QStringLiteral("1") : QStringLiteral("0")};
        if (role == Role::Checker)
            arguments << QStringLiteral("--checker"); // the baseline's process judges too
        else if (role == Role::Launcher)
            arguments << QStringLiteral("--launcher"); // refuses host code
        into.process = std::make_unique<SandboxProcess>(settings(m_options, arguments, role));
        if (into.work->isValid() &&
            into.process->start(into.work->path(), 1 << 20, m_options.startTimeoutMs * 3, error))
            return true;
        into.process.reset();
        // Some drivers refuse a context inside an unprivileged user namespace: try once
        // without it (the report then says userns=0).
        if (!userNamespace)
            break;
        m_userNamespace = false;
    }
    return false;
}

bool CudaSandboxSlot::ensureStarted(QString *error)
{
    // It may have ended between evaluations (killed from outside): that is not the next
    // candidate's doing.
    SandboxProcess *process = m_candidates.process.get();
    if (process && !process->running()) {
        qWarning("kiln: the GPU %d sandbox had ended between evaluations (%s); restarting",
                 m_device.index, qPrintable(process->describeEnd()));
        restart();
    }
    // Spares from the first evaluation on (a profiled sandbox is one process at a time).
    if (!m_starter.joinable() && m_options.cudaSpareSandboxes > 0 &&
        !m_options.profilesCandidates())
        m_starter = std::thread([this] { keepSparesReady(); });
    return m_candidates.process || takeSpare() || start(m_candidates, Role::Candidates, error);
}

bool CudaSandboxSlot::withinAllowance(SandboxProcess &process, const VerifierOptions &options)
{
    return process.running() &&
           process.cpuSecondsUsed() + options.sandbox.cpuSeconds <= process.settings().cpuSeconds;
}

bool CudaSandboxSlot::ensureLauncherStarted(QString *error)
{
    if (m_launcher.process && (!withinAllowance(*m_launcher.process, m_options) ||
                               m_launcherEvaluations >= m_options.cudaEvaluationsPerLauncher))
        restartLauncher();
    return m_launcher.process || start(m_launcher, Role::Launcher, error);
}

bool CudaSandboxSlot::ensureBaselineStarted(QString *error)
{
    SandboxProcess *process = m_baselines.process.get();
    if (process && !withinAllowance(*process, m_options))
        restartBaseline();
    return m_baselines.process || start(m_baselines, Role::Checker, error);
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
