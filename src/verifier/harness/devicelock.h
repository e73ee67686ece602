#pragma once

#include <QString>
#include <atomic>

namespace kiln {

// A machine-wide lock per device that every Kiln process honours (the window, kiln-cli, a Slurm
// worker on the same node). A timed window holds its device's lock exclusively; work that would
// disturb a timing on that device (compiles and correctness calls on the CPU, correctness calls
// on a GPU) holds it shared, so such work of several candidates still overlaps, just never a
// timing. flock(2) on one file per device: the kernel drops a dead process's hold, and every
// DeviceLock opens its own descriptor, so threads of one process exclude each other too.
// A waiting exclusive holder passes a turnstile first that new shared holders must pass as well:
// a stream of compiles cannot starve a timing. A thread that already holds a device's lock and
// asks for it again (starting the GPU checker while its correctness calls hold the GPU) is
// granted it at once: waiting would deadlock behind another process's queued timing, which
// waits for this very hold.
class DeviceLock
{
public:
    enum class Mode
    {
        Shared,
        Exclusive
    };

    // Blocks until held, or until `cancel` (then held() is false). `device` is a short name:
    // "cpu", or "gpu-" and the GPU's UUID (the same GPU whatever CUDA_VISIBLE_DEVICES says).
    DeviceLock(const QString &device, Mode mode, const std::atomic<bool> *cancel = nullptr);
    ~DeviceLock();
    DeviceLock(const DeviceLock &) = delete;
    DeviceLock &operator=(const DeviceLock &) = delete;

    bool held() const { return m_fd >= 0 || m_nested; }
    // The wait ended by `cancel`: the caller stops (held() is false). Without a lock to take
    // (switched off, or no lock file could be made) neither is set and work goes on unlocked.
    bool cancelled() const { return m_cancelled; }
    double waitedMs() const { return m_waitedMs; }
    void release();

    // $KILN_LOCK_DIR, else kiln-device-locks under /tmp (created world-writable and sticky, so
    // every user's Kiln shares it). The lock is skipped when KILN_DEVICE_LOCK=off, which only
    // bench/noise uses to measure what the lock buys.
    static QString directory();
    static bool enabled();

private:
    int m_fd = -1;
    bool m_nested = false; // granted by a hold of this thread's on the same device
    bool m_cancelled = false;
    QString m_device;
    double m_waitedMs = 0.0;
};

} // namespace kiln
