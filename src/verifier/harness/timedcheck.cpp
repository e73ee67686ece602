#include "verifier/harness/timedcheck.h"

#include <algorithm>
#include <cstring>

namespace kiln {

namespace {

// One result over every window: counts summed, the first mismatch as an index into the whole
// output.
CheckResult compareWindows(const TimedOutput &o, const char *against, const char *scale,
                           const TaskParameter &parameter, const Tolerance &tolerance)
{
    const QList<QPair<qint64, qint64>> windows =
        o.windows.isEmpty() ? QList<QPair<qint64, qint64>>{{0, o.bytes}} : o.windows;
    CheckResult all;
    for (const auto &[start, bytes] : windows) {
        const CheckResult c = OutputChecker::compare(o.atReturn + start, against + start,
                                                     scale ? scale + start : nullptr, bytes / 4,
                                                     parameter.dtype, tolerance);
        if (c.mismatches > 0 && all.firstMismatch < 0) {
            all.firstMismatch = start / 4 + c.firstMismatch;
            all.gotAtFirst = c.gotAtFirst;
            all.expectedAtFirst = c.expectedAtFirst;
        }
        all.elements += c.elements;
        all.mismatches += c.mismatches;
        all.unwritten += c.unwritten;
        all.nonFinite += c.nonFinite;
        all.maxAbsError = std::max(all.maxAbsError, c.maxAbsError);
        all.maxRelError = std::max(all.maxRelError, c.maxRelError);
    }
    all.ok = all.mismatches == 0;
    return all;
}

// All of it, whatever the windows: a late write may touch a few elements only, and a byte
// comparison costs little next to the tolerance check.
bool changedAfterReturn(const TimedOutput &o)
{
    return o.now && std::memcmp(o.atReturn, o.now, size_t(o.bytes)) != 0;
}

constexpr int kSampledWindows = 8;
constexpr qint64 kWindowBytes = 16384;

} // namespace

QList<QPair<qint64, qint64>> TimedCheck::windows(quint64 secret, qint64 bytes, bool full, int call)
{
    QList<QPair<qint64, qint64>> list;
    if (full || bytes <= kSampledWindows * kWindowBytes) {
        list.append({0, bytes});
        return list;
    }
    quint64 state = secret ^ (quint64(call) * 0x9e3779b97f4a7c15ull);
    for (int w = 0; w < kSampledWindows; ++w) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const qint64 start = qint64((state >> 16) % quint64(bytes - kWindowBytes)) & ~3ll;
        list.append({start, kWindowBytes});
    }
    return list;
}

TimedCheck::Outcome TimedCheck::judge(const Task &task, const QList<TimedOutput> &outputs, int call,
                                      const QString &distribution)
{
    QList<TimedFinding> findings;
    for (const TimedOutput &o : outputs) {
        const TaskParameter &parameter = task.parameters[o.parameter];
        const Tolerance tolerance = task.tolerances.value(parameter.dtype);
        TimedFinding f;
        f.parameter = o.parameter;
        f.changedAfterReturn = changedAfterReturn(o);
        if (!f.changedAfterReturn) {
            f.check = compareWindows(o, o.expected, o.scale, parameter, tolerance);
            f.matchesPrevious = !f.check.ok && o.previous &&
                                compareWindows(o, o.previous, o.scale, parameter, tolerance).ok;
        }
        findings.append(f);
        if (f.changedAfterReturn || !f.check.ok)
            break;
    }
    return conclude(task, findings, call, distribution);
}

TimedCheck::Outcome TimedCheck::conclude(const Task &task, const QList<TimedFinding> &findings,
                                         int call, const QString &distribution)
{
    Outcome outcome;
    const QString where = QStringLiteral("timed call %1").arg(call);
    for (const TimedFinding &f : findings) {
        const TaskParameter &parameter = task.parameters[f.parameter];
        if (f.changedAfterReturn) {
            outcome.flags.append(
                {QStringLiteral("threads_left_running"),
                 QStringLiteral("%1 changed after the call returned").arg(parameter.name)});
            outcome.ok = false;
            outcome.detail = QStringLiteral("%1 went on changing %2 after it returned")
                                 .arg(where, parameter.name);
            return outcome;
        }
        if (f.check.ok)
            continue;
        if (f.matchesPrevious)
            outcome.flags.append({QStringLiteral("cached_result"), where});
        if (f.check.unwritten == f.check.elements && f.check.elements > 1)
            outcome.flags.append({QStringLiteral("timed_output_unwritten"), where});
        outcome.ok = false;
        outcome.detail = QStringLiteral("%1 (%2 data) gave a wrong %3: %4")
                             .arg(where, distribution, parameter.name, f.check.describe());
        return outcome;
    }
    return outcome;
}

} // namespace kiln
