#include "verifier/cpu/cpuactivity.h"

#include <QDir>
#include <QFile>
#include <QtGlobal>

#include <algorithm>
#include <sched.h>
#include <time.h>
#include <unistd.h>

namespace kiln {

namespace {

qint64 monotonicNs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// utime + stime of /proc/<pid>/stat (or of a thread's, "self/task/<tid>"), in ms, with cutime +
// cstime (the children it waited for; a thread's line repeats its process's), its parent and its
// scheduling policy; cpuMs < 0 when it is gone.
struct StatLine
{
    double cpuMs = -1.0;
    double childrenMs = 0.0;
    qint64 parent = 0;
    int policy = 0;
};

StatLine statOf(const QString &pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray line = file.readAll();
    // The name sits in parentheses and may hold spaces: fields are counted after the last ')'.
    const qsizetype close = line.lastIndexOf(')');
    if (close < 0)
        return {};
    const QList<QByteArray> fields = line.mid(close + 2).split(' ');
    if (fields.size() < 15)
        return {};
    static const double msPerTick = 1000.0 / double(::sysconf(_SC_CLK_TCK));
    // proc(5)'s fields 4 (ppid), 14-17 (times) and 41 (policy), the 2nd, 12th-15th and 39th
    // after the name.
    return {(fields[11].toDouble() + fields[12].toDouble()) * msPerTick,
            (fields[13].toDouble() + fields[14].toDouble()) * msPerTick, fields[1].toLongLong(),
            fields.size() > 38 ? fields[38].toInt() : 0};
}

QString nameOf(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/comm").arg(pid));
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).trimmed()
                                          : QStringLiteral("?");
}

} // namespace

CpuActivity::CpuActivity(QSet<qint64> ownPids) : m_own(std::move(ownPids))
{
    m_own.insert(qint64(::getpid()));
}

QHash<qint64, CpuActivity::Usage> CpuActivity::snapshot() const
{
    QHash<qint64, Usage> times;
    const QStringList pids =
        QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : pids) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number || m_own.contains(pid))
            continue;
        const StatLine stat = statOf(entry);
        if (stat.cpuMs >= 0.0)
            times.insert(pid, {stat.cpuMs + stat.childrenMs, stat.parent});
    }
    // The engine's other threads (other evaluations' inputs and comparisons, a window's drawing)
    // delay the round trips the engine times as much as another process does; those at
    // SCHED_IDLE (CoreWaker's spinners) run only on a core nobody else wants. Thread ids share
    // the process ids' space, so they key the same table.
    const QStringList threads =
        QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : threads) {
        const qint64 tid = entry.toLongLong();
        const StatLine stat = statOf(QStringLiteral("self/task/") + entry);
        if (tid != m_timingThread && stat.cpuMs >= 0.0 && stat.policy != SCHED_IDLE)
            times.insert(tid, {stat.cpuMs, 0});
    }
    return times;
}

double CpuActivity::stealMs()
{
    QFile file(QStringLiteral("/proc/stat"));
    if (!file.open(QIODevice::ReadOnly))
        return 0.0;
    // "cpu  user nice system idle iowait irq softirq steal ...": the machine-wide line first.
    const QList<QByteArray> fields = file.readLine().simplified().split(' ');
    static const double msPerTick = 1000.0 / double(::sysconf(_SC_CLK_TCK));
    return fields.size() > 8 ? fields[8].toDouble() * msPerTick : 0.0;
}

void CpuActivity::start()
{
    m_timingThread = qint64(::gettid());
    m_stealBefore = stealMs();
    m_before = snapshot();
    m_startNs = monotonicNs();
}

// A process gone since the start was waited for by its parent (or by an ancestor, where the
// parent went too), whose count of children now holds all of its time: the part it had used
// before the window is taken off there.
QList<CpuActivity::Other> CpuActivity::usedInWindow(const QHash<qint64, Usage> &after) const
{
    QHash<qint64, double> used;
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        used.insert(it.key(), it->cpuMs - m_before.value(it.key()).cpuMs);
    for (auto it = m_before.cbegin(); it != m_before.cend(); ++it) {
        if (after.contains(it.key()))
            continue;
        qint64 reaper = it->parent;
        for (int depth = 0; depth < 64 && !after.contains(reaper) && m_before.contains(reaper);
             ++depth)
            reaper = m_before.value(reaper).parent;
        if (after.contains(reaper))
            used[reaper] -= it->cpuMs;
    }
    QList<Other> others;
    for (auto it = used.cbegin(); it != used.cend(); ++it)
        if (it.value() > 0.0)
            others.append({it.key(), QString(), it.value()});
    std::sort(others.begin(), others.end(),
              [](const Other &a, const Other &b) { return a.cpuMs > b.cpuMs; });
    return others;
}

CpuActivity::Finding CpuActivity::finish() const
{
    Finding finding;
    finding.wallMs = (monotonicNs() - m_startNs) / 1e6;
    QList<Other> others = usedInWindow(snapshot());
    for (Other &other : others) {
        finding.othersMs += other.cpuMs;
        other.engineThread = QFile::exists(QStringLiteral("/proc/self/task/%1").arg(other.pid));
        if (other.engineThread)
            finding.engineThreadsMs += other.cpuMs;
    }
    for (qsizetype i = 0; i < std::min<qsizetype>(3, others.size()); ++i) {
        others[i].name = nameOf(others[i].pid);
        finding.top.append(others[i]);
    }
    // Steal is summed over every CPU: per CPU it compares with one core's allowance.
    const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    finding.stealMs = std::max(0.0, stealMs() - m_stealBefore) / double(cpus);
    const double allowed = std::max(kFloorMs, kShareOfOneCore * finding.wallMs);
    finding.disturbed = finding.othersMs > allowed || finding.stealMs > allowed;
    return finding;
}

QString CpuActivity::Finding::describe() const
{
    QStringList names;
    for (const Other &o : top)
        names << QStringLiteral("%1 %2 (%3) %4 ms")
                     .arg(o.engineThread ? QStringLiteral("engine thread")
                                         : QStringLiteral("process"))
                     .arg(o.pid)
                     .arg(o.name)
                     .arg(o.cpuMs, 0, 'f', 0);
    QString text = QStringLiteral("other processes used %1 ms of CPU during %2 ms of timing")
                       .arg(othersMs, 0, 'f', 0)
                       .arg(wallMs, 0, 'f', 0);
    if (!names.isEmpty())
        text += QStringLiteral(": ") + names.join(QStringLiteral(", "));
    if (stealMs > 0.0)
        text += QStringLiteral("; the virtual machine's host took %1 ms of its CPUs (steal)")
                    .arg(stealMs, 0, 'f', 0);
    return text;
}

} // namespace kiln
