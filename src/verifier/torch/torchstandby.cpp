#include "verifier/torch/torchstandby.h"

#include "verifier/harness/devicelock.h"

#include <QElapsedTimer>
#include <chrono>

namespace kiln {

namespace {

constexpr qint64 kCandidateBufferBytes = 64 << 20;
constexpr qint64 kBuildBufferBytes = 1 << 20;

// Holds a device lock shared, where one is named; false when cancelled while waiting.
bool holdShared(const QString &lockName, const std::atomic<bool> *cancel,
                std::unique_ptr<DeviceLock> &hold)
{
    if (lockName.isEmpty())
        return true;
    hold = std::make_unique<DeviceLock>(lockName, DeviceLock::Mode::Shared, cancel);
    return !hold->cancelled();
}

} // namespace

TorchStandby::~TorchStandby()
{
    QMutexLocker lock(&m_mutex);
    dropAll();
}

void TorchStandby::dropAll()
{
    for (Start &start : m_starts)
        *start.cancel = true;
    for (Start &start : m_starts)
        start.process.get(); // the process, started or not, ends with its unique_ptr
    m_starts.clear();
}

std::unique_ptr<TorchProcess> TorchStandby::create(const Request &request) const
{
    const bool candidate = m_role == TorchProcess::Role::Candidate;
    return std::make_unique<TorchProcess>(request.options, request.environment, m_role, QString(),
                                          m_buildSlots, candidate ? &request.language : nullptr);
}

qint64 TorchStandby::startBufferBytes() const
{
    return m_role == TorchProcess::Role::Candidate ? kCandidateBufferBytes : kBuildBufferBytes;
}

void TorchStandby::prepare(const Request &request)
{
    const QString recipe = create(request)->recipe();
    QMutexLocker lock(&m_mutex);
    if (!m_starts.empty() && m_starts.front().recipe != recipe) // not wanted any more
        dropAll();
    const qint64 bufferBytes = startBufferBytes();
    while (int(m_starts.size()) < m_depth) {
        auto cancel = std::make_shared<std::atomic<bool>>(false);
        m_starts.push_back(
            {recipe, cancel,
             std::async(std::launch::async,
                        [lockName = request.startLock, bufferBytes, cancel,
                         process = create(request)]() mutable -> std::unique_ptr<TorchProcess> {
                            std::unique_ptr<DeviceLock> hold;
                            QString error;
                            if (!holdShared(lockName, cancel.get(), hold) ||
                                !process->start(QString(), bufferBytes, &error, cancel.get()))
                                return nullptr;
                            return std::move(process);
                        })});
    }
}

// The oldest start of this recipe, waited for: the one with the most of its start behind it.
std::unique_ptr<TorchProcess> TorchStandby::take(const Request &request)
{
    const QString recipe = create(request)->recipe();
    QMutexLocker lock(&m_mutex);
    if (m_starts.empty() || m_starts.front().recipe != recipe)
        return nullptr;
    std::future<std::unique_ptr<TorchProcess>> &oldest = m_starts.front().process;
    while (oldest.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
        if (request.cancel && *request.cancel)
            return nullptr; // the start goes on, for the next evaluation
    }
    std::unique_ptr<TorchProcess> process = oldest.get();
    m_starts.pop_front();
    if (process && !process->process().running())
        return nullptr; // ended while it waited: the caller starts its own
    return process;
}

bool TorchStandby::open(TorchProcess &process, const Request &request, QString *error) const
{
    std::unique_ptr<DeviceLock> hold;
    if (!holdShared(request.openLock, request.cancel, hold)) {
        *error = QStringLiteral("cancelled while waiting for the device");
        return false;
    }
    return process.openDevice(request.extensionDir, request.cancel, error);
}

TorchStandby::Acquired TorchStandby::acquire(const Request &request)
{
    QElapsedTimer timer;
    timer.start();
    Acquired acquired;
    acquired.process = take(request);
    acquired.startedAhead = acquired.process != nullptr;
    prepare(request);
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!acquired.process) {
            std::unique_ptr<DeviceLock> hold;
            if (!holdShared(request.startLock, request.cancel, hold)) {
                acquired.error = QStringLiteral("cancelled while waiting for the device");
                return acquired;
            }
            auto process = create(request);
            if (!process->start(QString(), startBufferBytes(), &acquired.error, request.cancel))
                return acquired;
            acquired.process = std::move(process);
        }
        acquired.startMs = timer.nsecsElapsed() / 1e6;
        acquired.startPhases = acquired.process->startPhases();
        timer.restart();
        if (open(*acquired.process, request, &acquired.error)) {
            acquired.openMs = timer.nsecsElapsed() / 1e6;
            return acquired;
        }
        // A new process's failure is the caller's to report; one started ahead gets one more
        // try with a new process (nothing of the candidate has run in either).
        acquired.process.reset();
        if (!acquired.startedAhead || (request.cancel && *request.cancel))
            return acquired;
        acquired.startedAhead = false;
    }
    return acquired;
}

} // namespace kiln
