#include "promptnotes.h"

#include <QRegularExpression>
#include <QStringList>

namespace kiln {

QString PromptNotes::section(const QString &prompt, const QString &headingStart)
{
    const QString marker = QStringLiteral("## ") + headingStart;
    const qsizetype start = prompt.indexOf(marker);
    if (start < 0)
        return {};
    const qsizetype bodyStart = prompt.indexOf(QLatin1Char('\n'), start);
    if (bodyStart < 0)
        return {};
    qsizetype end = prompt.indexOf(QStringLiteral("\n## "), bodyStart);
    if (end < 0)
        end = prompt.size();
    return prompt.mid(bodyStart + 1, end - bodyStart - 1).trimmed();
}

QList<PromptNotes::KnobMove> PromptNotes::memoryMoves(const QString &prompt)
{
    // "1. task (backend, shape): knob: a -> b; other: c -> d — 1.10x -> 1.40x, 1.27x faster"
    static const QRegularExpression lesson(QStringLiteral(R"(^\d+\. [^(]*\([^)]*\): (.*) — )"));
    static const QRegularExpression move(
        QStringLiteral(R"(^([A-Za-z_][A-Za-z0-9_]*): (\S+) -> (\S+)$)"));
    QList<KnobMove> moves;
    for (const QString &line :
         section(prompt, QStringLiteral("What worked before")).split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch m = lesson.match(line);
        if (!m.hasMatch())
            continue;
        for (const QString &part : m.captured(1).split(QStringLiteral("; "))) {
            const QRegularExpressionMatch k = move.match(part.trimmed());
            if (k.hasMatch())
                moves.append({k.captured(1), k.captured(3), line.trimmed()});
        }
    }
    return moves;
}

QList<PromptNotes::KnobMove> PromptNotes::planMoves(const QString &plan)
{
    static const QRegularExpression set(
        QStringLiteral(R"(\bset `?([A-Za-z_][A-Za-z0-9_]*)`? = `?([^\s`(]+)`?)"));
    QList<KnobMove> moves;
    for (auto it = set.globalMatch(plan); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        moves.append({m.captured(1), m.captured(2), m.captured(0)});
    }
    return moves;
}

QString PromptNotes::limiter(const QString &profile)
{
    // A hardware profile first: throughput near the peak of a unit names that unit.
    static const QRegularExpression memory(QStringLiteral(R"(memory throughput[^:\n]*: ([0-9.]+))"),
                                           QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression compute(
        QStringLiteral(R"(compute throughput[^:\n]*: ([0-9.]+))"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch mm = memory.match(profile);
    const QRegularExpressionMatch cm = compute.match(profile);
    if (mm.hasMatch() && mm.captured(1).toDouble() >= 60.0)
        return QStringLiteral("memory_bound");
    if (cm.hasMatch() && cm.captured(1).toDouble() >= 60.0)
        return QStringLiteral("compute_bound");
    // A GPU kernel of a few microseconds spends its time launching (as refine's feedback reads it).
    static const QRegularExpression time(QStringLiteral(R"(- kernel time: ([0-9.eE+-]+) ms)"));
    const QRegularExpressionMatch t = time.match(profile);
    if (profile.contains(QLatin1String("- backend: cuda")) && t.hasMatch() &&
        t.captured(1).toDouble() < 0.01)
        return QStringLiteral("launch_bound");
    static const QRegularExpression named(
        QStringLiteral(R"(limiter named by the verifier: (memory|compute|launch|latency))"));
    const QRegularExpressionMatch n = named.match(profile);
    if (n.hasMatch())
        return n.captured(1) == QLatin1String("latency") ? n.captured(1)
                                                         : n.captured(1) + QStringLiteral("_bound");
    static const QRegularExpression roofline(QStringLiteral(R"(roofline fraction: ([0-9.eE+-]+))"));
    const QRegularExpressionMatch r = roofline.match(profile);
    if (r.hasMatch() && r.captured(1).toDouble() < 0.2)
        return QStringLiteral("latency");
    return {};
}

QString PromptNotes::diagnosedLimiter(const QString &diagnosis)
{
    const QString first = diagnosis.section(QLatin1Char('\n'), 0, 0).toLower();
    for (const QString &kind :
         {QStringLiteral("memory"), QStringLiteral("compute"), QStringLiteral("launch")})
        if (first.contains(kind + QStringLiteral("-bound")))
            return kind + QStringLiteral("_bound");
    return first.contains(QLatin1String("latency")) ? QStringLiteral("latency") : QString();
}

} // namespace kiln
