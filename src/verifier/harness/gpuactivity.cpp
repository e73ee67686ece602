#include "verifier/harness/gpuactivity.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QStringList>
#include <QThread>

#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <signal.h>
#include <vector>

namespace kiln {

namespace {

// The few NVML types used, declared here: nvml.h comes with the driver's development files,
// which a machine that builds Kiln need not have.
struct nvmlDevice_st;
using NvmlReturn = int;
using NvmlDevice = nvmlDevice_st *;
constexpr NvmlReturn kSuccess = 0;
constexpr NvmlReturn kNotSupported = 3;
constexpr NvmlReturn kNotFound = 6;
constexpr NvmlReturn kInsufficientSize = 7;

struct UtilizationSample // nvmlProcessUtilizationSample_t
{
    unsigned int pid;
    unsigned long long timeStamp; // µs since the epoch
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
};

struct ProcessInfo // nvmlProcessInfo_t of the _v2 and _v3 calls
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

// The library's entry points, resolved once per process; `reason` is empty once NVML is
// initialised. Never unloaded: other threads may be inside a call at exit.
struct Nvml
{
    QString reason;
    const char *(*errorString)(NvmlReturn) = nullptr;
    NvmlReturn (*handleByUuid)(const char *, NvmlDevice *) = nullptr;
    NvmlReturn (*processUtilization)(NvmlDevice, UtilizationSample *, unsigned int *,
                                     unsigned long long) = nullptr;
    NvmlReturn (*runningProcesses)(NvmlDevice, unsigned int *, ProcessInfo *) = nullptr;
};

template <typename Function> bool resolve(void *library, const char *name, Function &into)
{
    into = reinterpret_cast<Function>(::dlsym(library, name));
    return into != nullptr;
}

Nvml load()
{
    Nvml nvml;
    void *library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        nvml.reason = QStringLiteral("NVML is not available (no NVIDIA driver?): %1")
                          .arg(QString::fromLocal8Bit(::dlerror()));
        return nvml;
    }
    NvmlReturn (*init)() = nullptr;
    const bool complete =
        (resolve(library, "nvmlInit_v2", init) || resolve(library, "nvmlInit", init)) &&
        resolve(library, "nvmlErrorString", nvml.errorString) &&
        resolve(library, "nvmlDeviceGetHandleByUUID", nvml.handleByUuid) &&
        resolve(library, "nvmlDeviceGetProcessUtilization", nvml.processUtilization);
    // Only to name the processes where utilisation is not sampled; optional.
    if (!resolve(library, "nvmlDeviceGetComputeRunningProcesses_v3", nvml.runningProcesses))
        resolve(library, "nvmlDeviceGetComputeRunningProcesses_v2", nvml.runningProcesses);
    if (!complete) {
        nvml.reason = QStringLiteral("libnvidia-ml.so.1 lacks the per-process utilisation calls");
        return nvml;
    }
    if (const NvmlReturn status = init(); status != kSuccess)
        nvml.reason = QStringLiteral("NVML did not initialise: %1")
                          .arg(QString::fromLatin1(nvml.errorString(status)));
    return nvml;
}

const Nvml &nvml()
{
    static const Nvml loaded = load(); // once per process; C++ makes the first call thread-safe
    return loaded;
}

QString errorText(NvmlReturn status)
{
    return QStringLiteral("%1 (%2)")
        .arg(QString::fromLatin1(nvml().errorString(status)))
        .arg(status);
}

bool findDevice(const QString &uuid, NvmlDevice *device, QString *error)
{
    if (uuid.isEmpty()) {
        *error = QStringLiteral("the GPU's UUID is unknown");
        return false;
    }
    const NvmlReturn status = nvml().handleByUuid(uuid.toLatin1().constData(), device);
    if (status != kSuccess)
        *error = QStringLiteral("NVML does not know %1: %2").arg(uuid, errorText(status));
    return status == kSuccess;
}

// The samples stamped after `lastSeen`: the count first (no buffer), then the samples, asked
// again when the count grew in between. kNotFound: none.
NvmlReturn readSamples(NvmlDevice device, unsigned long long lastSeen,
                       std::vector<UtilizationSample> &samples)
{
    samples.clear();
    for (int attempt = 0; attempt < 4; ++attempt) {
        unsigned int count = 0;
        NvmlReturn status = nvml().processUtilization(device, nullptr, &count, lastSeen);
        if (status != kSuccess && status != kInsufficientSize)
            return status;
        if (count == 0)
            return kNotFound;
        samples.resize(count);
        status = nvml().processUtilization(device, samples.data(), &count, lastSeen);
        if (status == kInsufficientSize)
            continue;
        samples.resize(status == kSuccess ? std::min<size_t>(count, samples.size()) : 0);
        return status;
    }
    return kInsufficientSize;
}

// Whether each process of `samples` that still runs has one stamped at or after `until`. A
// process that ended keeps its last sample, which is never renewed: it is not waited for.
bool allRenewedSince(const std::vector<UtilizationSample> &samples, quint64 until)
{
    for (const UtilizationSample &sample : samples) {
        if (sample.timeStamp >= until)
            continue;
        const bool renewedLater =
            std::any_of(samples.begin(), samples.end(), [&](const UtilizationSample &other) {
                return other.pid == sample.pid && other.timeStamp >= until;
            });
        if (!renewedLater && ::kill(pid_t(sample.pid), 0) == 0)
            return false;
    }
    return true;
}

QString processName(qint64 pid)
{
    QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
    if (!comm.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLocal8Bit(comm.readAll()).trimmed();
}

// Without utilisation sampling: who holds a context on the device (not who was busy).
QList<GpuActivity::Busy> holdingContexts(NvmlDevice device, const QSet<qint64> &ownPids)
{
    QList<GpuActivity::Busy> holders;
    if (!nvml().runningProcesses)
        return holders;
    std::vector<ProcessInfo> processes(64);
    auto count = static_cast<unsigned int>(processes.size());
    if (nvml().runningProcesses(device, &count, processes.data()) != kSuccess)
        return holders;
    for (unsigned int i = 0; i < count && i < processes.size(); ++i)
        if (!ownPids.contains(processes[i].pid))
            holders.append({processes[i].pid, -1, -1, processName(processes[i].pid)});
    return holders;
}

} // namespace

GpuActivity::GpuActivity() : m_reason(nvml().reason) {}

quint64 GpuActivity::nowMicroseconds()
{
    using namespace std::chrono;
    return quint64(duration_cast<microseconds>(system_clock::now().time_since_epoch()).count());
}

QString GpuActivity::describe(const Busy &busy)
{
    const QString name = busy.name.isEmpty() ? QStringLiteral("?") : busy.name;
    if (busy.smUtil < 0)
        return QStringLiteral("process %1 (%2)").arg(busy.pid).arg(name);
    return QStringLiteral("process %1 (%2, %3 % SM)").arg(busy.pid).arg(name).arg(busy.smUtil);
}

QString GpuActivity::describe(const QList<Busy> &busy)
{
    QStringList parts;
    for (const Busy &b : busy)
        parts.append(describe(b));
    return parts.join(QStringLiteral(", "));
}

QJsonArray GpuActivity::toJson(const QList<Busy> &busy)
{
    QJsonArray array;
    for (const Busy &b : busy)
        array.append(QJsonObject{{QStringLiteral("pid"), b.pid},
                                 {QStringLiteral("name"), b.name},
                                 {QStringLiteral("sm_util"), b.smUtil},
                                 {QStringLiteral("mem_util"), b.memUtil}});
    return array;
}

QList<GpuActivity::Busy> GpuActivity::othersSince(const QString &uuid, quint64 sinceMicroseconds,
                                                  const QSet<qint64> &ownPids)
{
    m_error = m_reason;
    NvmlDevice device = nullptr;
    if (!available() || !findDevice(uuid, &device, &m_error))
        return {};
    // Every process's newest sample, of any age: whether ours show at all is read from them.
    std::vector<UtilizationSample> samples;
    const NvmlReturn status = readSamples(device, 0, samples);
    if (status == kNotSupported) {
        m_error = QStringLiteral("this GPU does not sample utilisation per process");
        return holdingContexts(device, ownPids);
    }
    if (status != kSuccess && status != kNotFound) {
        m_error = QStringLiteral("NVML's utilisation samples: ") + errorText(status);
        return {};
    }
    QList<Busy> others;
    bool sawOwn = false;
    for (const UtilizationSample &sample : samples) {
        if (ownPids.contains(sample.pid))
            sawOwn = true;
        if (sample.timeStamp < sinceMicroseconds || ownPids.contains(sample.pid) ||
            (sample.smUtil == 0 && sample.memUtil == 0))
            continue;
        auto it = std::find_if(others.begin(), others.end(),
                               [&](const Busy &b) { return b.pid == qint64(sample.pid); });
        if (it == others.end())
            it = others.insert(others.end(), Busy{sample.pid, 0, 0, processName(sample.pid)});
        it->smUtil = std::max(it->smUtil, int(sample.smUtil));
        it->memUtil = std::max(it->memUtil, int(sample.memUtil));
    }
    std::sort(others.begin(), others.end(),
              [](const Busy &a, const Busy &b) { return a.smUtil > b.smUtil; });
    m_error.clear();
    // NVML names processes by the host's ids: in a container with a pid namespace of its own,
    // our own sandboxes would look like others and excuse a candidate's side streams. Others
    // count only where one of our own processes shows in NVML's samples under its id. Not
    // necessarily in the window: a process busy for half a second may get no sample stamped
    // inside it, as NVML renews each process's one sample up to a second apart.
    if (!others.isEmpty() && !sawOwn) {
        m_error = QStringLiteral("none of this evaluation's processes shows in NVML's samples "
                                 "under its id (a pid namespace?): others cannot be told apart");
        return {};
    }
    return others;
}

bool GpuActivity::waitForSamples(const QString &uuid, quint64 untilMicroseconds, int timeoutMs)
{
    NvmlDevice device = nullptr;
    QString error;
    if (!available() || !findDevice(uuid, &device, &error))
        return false;
    QElapsedTimer waited;
    waited.start();
    std::vector<UtilizationSample> samples;
    while (true) {
        const NvmlReturn status = readSamples(device, 0, samples);
        if (status != kSuccess && status != kNotFound)
            return false;
        if (status == kSuccess && allRenewedSince(samples, untilMicroseconds))
            return true;
        if (waited.elapsed() >= timeoutMs)
            return false;
        QThread::msleep(25);
    }
}

} // namespace kiln
