#pragma once

#include <QJsonArray>
#include <QList>
#include <QSet>
#include <QString>

namespace kiln {

// Which other processes used a GPU, from NVML's per-process utilisation samples. While another
// process's context holds the GPU (time-slicing), a timed window's wall clock grows and its
// events do not: that gap is the other process's doing, not the candidate's side-stream work.
// libnvidia-ml.so.1 is loaded at run time, never linked, so the engine still runs without a
// driver (available() is then false and reason() says why). NVML is initialised once per
// process; any thread may use a GpuActivity of its own.
class GpuActivity
{
public:
    struct Busy
    {
        qint64 pid = 0;
        int smUtil = -1;  // % of the SMs' time in NVML's samples; -1: not sampled
        int memUtil = -1; // % of the memory's time, likewise
        QString name;     // /proc/<pid>/comm where readable
    };

    GpuActivity();
    bool available() const { return m_reason.isEmpty(); }
    QString reason() const { return m_reason; }

    // The processes outside `ownPids` that used the SMs or the memory of the GPU with this UUID
    // ("GPU-...", as nvidia-smi prints it) since `sinceMicroseconds` (µs since the epoch: NVML
    // stamps its samples with the CPU's clock), busiest first. Empty when none did or NVML
    // cannot tell, which error() then says. Where the GPU has no utilisation sampling, the
    // processes holding a context are listed with smUtil -1 and error() is set: they were
    // there, not necessarily busy.
    QList<Busy> othersSince(const QString &uuid, quint64 sinceMicroseconds,
                            const QSet<qint64> &ownPids);
    QString error() const { return m_error; }
    // NVML keeps one sample per process, stamped at the end of its period, and renews each at
    // its own pace (up to about a second apart on an H100, driver 580: docs/performance.md), so
    // right after a window a process busy during it may still show an older sample only. Waits
    // (at most timeoutMs) until every running process NVML samples on the device has one
    // stamped at or after `untilMicroseconds`. False when some did not come.
    bool waitForSamples(const QString &uuid, quint64 untilMicroseconds, int timeoutMs);

    static quint64 nowMicroseconds();
    static QString describe(const Busy &busy);         // "process 1234 (python3, 87 % SM)"
    static QString describe(const QList<Busy> &busy);  // those, joined with ", "
    static QJsonArray toJson(const QList<Busy> &busy); // [{pid, name, sm_util, mem_util}]

private:
    QString m_reason;
    QString m_error;
};

} // namespace kiln
