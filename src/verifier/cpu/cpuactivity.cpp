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

// utime + stime of /proc/<pid>/stat (or of a thread's, "self/task/<tid>"), in ms, and its
// scheduling policy; cpuMs < 0 when it is gone.
struct StatLine
{
    double cpuMs = -1.0;
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
    if (fields.size() < 13)
        return {};
    static const double msPerTick = 1000.0 / double(::sysconf(_SC_CLK_TCK));
    // Field 41 of proc(5), the 39th after the name.
    return {(fields[11].toDouble() + fields[12].toDouble()) * msPerTick,
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

QHash<qint64, double> CpuActivity::snapshot() const
{
    QHash<qint64, double> times;
    const QStringList pids =
        QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : pids) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number || m_own.contains(pid))
            continue;
        const double ms = statOf(entry).cpuMs;
        if (ms >= 0.0)
            times.insert(pid, ms);
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
            times.insert(tid, stat.cpuMs);
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

CpuActivity::Finding CpuActivity::finish() const
{
    Finding finding;
    finding.wallMs = (monotonicNs() - m_startNs) / 1e6;
    const QHash<qint64, double> after = snapshot();
    QList<Other> others;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        // A process born inside the window spent all of its time there.
        const double used = it.value() - m_before.value(it.key(), 0.0);
        if (used <= 0.0)
            continue;
        finding.othersMs += used;
        if (QFile::exists(QStringLiteral("/proc/self/task/%1").arg(it.key())))
            finding.engineThreadsMs += used;
        others.append({it.key(), QString(), used});
    }
    std::sort(others.begin(), others.end(),
              [](const Other &a, const Other &b) { return a.cpuMs > b.cpuMs; });
    for (qsizetype i = 0; i < std::min<qsizetype>(3, others.size()); ++i) {
        others[i].name = nameOf(others[i].pid);
        others[i].engineThread =
            QFile::exists(QStringLiteral("/proc/self/task/%1").arg(others[i].pid));
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
