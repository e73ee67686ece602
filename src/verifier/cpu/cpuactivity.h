#pragma once

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

namespace kiln {

// Who else used the CPU during a timed window. A lock keeps other Kiln processes' compiles and
// timings out of the window, but not a build, a browser or a second user's job: their CPU time
// is read from /proc before and after, and a window in which processes other than ours (the
// engine and the sandboxes of this evaluation) used more than a small share of one core is
// called disturbed; the engine's threads other than the timing one count as others. So is one in
// which a virtual machine's host ran something else on our cores (steal time in /proc/stat: the
// same reference timed 1.37 ms or 2.0 ms by it). Its times are then repeated, never charged to the
// candidate. A process born and gone inside the window (a build's compiler, a packager's
// compressor) leaves no /proc entry to read: its time is found in its reaper's, which counts the
// children it waited for.
class CpuActivity
{
public:
    struct Other
    {
        qint64 pid = 0;
        QString name; // /proc/<pid>/comm
        double cpuMs = 0.0;
        bool engineThread = false; // a thread of the engine's own process
    };
    struct Finding
    {
        double wallMs = 0.0;
        double othersMs = 0.0;        // CPU time of every other process in the window
        double engineThreadsMs = 0.0; // of which the engine's own other threads
        double stealMs = 0.0;         // time the host took a virtual CPU for other guests (per CPU)
        QList<Other> top;             // the busiest few, busiest first
        bool disturbed = false;
        QString describe() const; // "process 1234 (cc1plus) used 180 ms of CPU in 300 ms"
    };

    // Others may use this share of one core, and at least kFloorMs, before a window counts as
    // disturbed: a quiet machine's daemons stay below it.
    static constexpr double kShareOfOneCore = 0.05;
    static constexpr double kFloorMs = 3.0;

    explicit CpuActivity(QSet<qint64> ownPids);
    void start();
    Finding finish() const;

private:
    struct Usage
    {
        double cpuMs = 0.0; // user + system, and of the children it waited for
        qint64 parent = 0;
    };
    // pid, or a thread id of the engine's, -> its usage; ours and the timing thread left out
    QHash<qint64, Usage> snapshot() const;
    // Each process's CPU time inside the window, busiest first.
    QList<Other> usedInWindow(const QHash<qint64, Usage> &after) const;
    static double stealMs(); // /proc/stat's steal, every CPU, in ms

    QSet<qint64> m_own;
    qint64 m_timingThread = 0; // the thread that calls start() and finish()
    QHash<qint64, Usage> m_before;
    qint64 m_startNs = 0;
    double m_stealBefore = 0.0;
};

} // namespace kiln
