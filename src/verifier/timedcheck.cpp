#include "timedcheck.h"

#include <cstring>

namespace kiln {

namespace {

struct Compared
{
    CheckResult check;
    qint64 elements = 0;
    qint64 unwritten = 0;
};

Compared compareWindows(const TimedOutput &o, const char *against, const char *scale,
                        const TaskParameter &parameter, const Tolerance &tolerance)
{
    const QList<QPair<qint64, qint64>> windows =
        o.windows.isEmpty() ? QList<QPair<qint64, qint64>>{{0, o.bytes}} : o.windows;
    Compared c;
    for (const auto &[start, bytes] : windows) {
        const CheckResult check = OutputChecker::compare(o.atReturn + start, against + start,
                                                         scale ? scale + start : nullptr, bytes / 4,
                                                         parameter.dtype, tolerance);
        c.elements += bytes / 4;
        c.unwritten += check.unwritten;
        if (!check.ok && c.check.ok)
            c.check = check;
    }
    return c;
}

bool changedAfterReturn(const TimedOutput &o)
{
    if (!o.now)
        return false;
    const QList<QPair<qint64, qint64>> windows =
        o.windows.isEmpty() ? QList<QPair<qint64, qint64>>{{0, o.bytes}} : o.windows;
    for (const auto &[start, bytes] : windows)
        if (std::memcmp(o.atReturn + start, o.now + start, size_t(bytes)) != 0)
            return true;
    return false;
}

} // namespace

TimedCheck::Outcome TimedCheck::judge(const Task &task, const QList<TimedOutput> &outputs, int call,
                                      const QString &distribution)
{
    Outcome outcome;
    const QString where = QStringLiteral("timed call %1").arg(call);
    for (const TimedOutput &o : outputs) {
        const TaskParameter &parameter = task.parameters[o.parameter];
        const Tolerance tolerance = task.tolerances.value(parameter.dtype);
        if (changedAfterReturn(o)) {
            outcome.flags.append(
                {QStringLiteral("threads_left_running"),
                 QStringLiteral("%1 changed after the call returned").arg(parameter.name)});
            outcome.ok = false;
            outcome.detail = QStringLiteral("%1 went on changing %2 after it returned")
                                 .arg(where, parameter.name);
            return outcome;
        }
        const Compared c = compareWindows(o, o.expected, o.scale, parameter, tolerance);
        if (c.check.ok)
            continue;
        if (o.previous && compareWindows(o, o.previous, o.scale, parameter, tolerance).check.ok)
            outcome.flags.append({QStringLiteral("cached_result"), where});
        if (c.unwritten == c.elements && c.elements > 1)
            outcome.flags.append({QStringLiteral("output_unwritten"), where});
        outcome.ok = false;
        outcome.detail = QStringLiteral("%1 (%2 data) gave a wrong %3: %4")
                             .arg(where, distribution, parameter.name, c.check.describe());
        return outcome;
    }
    return outcome;
}

} // namespace kiln
