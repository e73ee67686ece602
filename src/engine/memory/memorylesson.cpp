#include "engine/memory/memorylesson.h"

#include "engine/memory/unifieddiff.h"

#include <QStringList>

namespace kiln {

namespace {

QString knobChanges(const CandidateRecord &parent, const CandidateRecord &child)
{
    const QJsonObject before = parent.policyMeta.value(QStringLiteral("knobs")).toObject();
    const QJsonObject after = child.policyMeta.value(QStringLiteral("knobs")).toObject();
    if (before.isEmpty() || after.isEmpty())
        return {};
    QStringList moves;
    for (auto it = after.constBegin(); it != after.constEnd(); ++it) {
        const QString was = before.value(it.key()).toVariant().toString();
        const QString now = it.value().toVariant().toString();
        if (was != now)
            moves << QStringLiteral("%1: %2 -> %3").arg(it.key(), was, now);
    }
    return moves.join(QStringLiteral("; "));
}

QString firstProseLine(const QString &response)
{
    bool inCode = false;
    for (const QString &raw : response.split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.startsWith(QLatin1String("```"))) {
            inCode = !inCode;
            continue;
        }
        // Headings and bracketed labels (the simulated policy's) say nothing of the idea.
        if (inCode || line.isEmpty() || line.startsWith(QLatin1Char('[')) ||
            line.startsWith(QLatin1Char('#')))
            continue;
        return line.size() > 160 ? line.left(157) + QStringLiteral("...") : line;
    }
    return {};
}

} // namespace

QString MemoryLesson::idea(const CandidateRecord &parent, const CandidateRecord &child)
{
    const QString knobs = knobChanges(parent, child);
    if (!knobs.isEmpty())
        return knobs;
    const QString prose = firstProseLine(child.response);
    if (!prose.isEmpty())
        return prose;
    const QString diff = UnifiedDiff::between(parent.source, child.source, 0, 100000);
    int added = 0;
    int removed = 0;
    for (const QString &line : diff.split(QLatin1Char('\n'))) {
        added += line.startsWith(QLatin1Char('+')) ? 1 : 0;
        removed += line.startsWith(QLatin1Char('-')) ? 1 : 0;
    }
    return QStringLiteral("source edit: %1 lines added, %2 removed").arg(added).arg(removed);
}

QString MemoryLesson::timingShape(const Task &task, Backend backend)
{
    return task.correctnessShapes.isEmpty() && !task.timingShapes.contains(backend)
               ? QString()
               : task.shapeLabel(task.timedShape(backend));
}

std::optional<MemoryEntry>
MemoryLesson::fromImprovement(const Task &task, Backend backend, qint64 runId,
                              const CandidateRecord &parent, const EvaluationResult &parentResult,
                              const CandidateRecord &child, const EvaluationResult &childResult)
{
    if (parentResult.verdict != Verdict::Pass || childResult.verdict != Verdict::Pass ||
        !parentResult.speedup || !childResult.speedup || *parentResult.speedup <= 0.0 ||
        *childResult.speedup < *parentResult.speedup * kMinimumGain)
        return std::nullopt;
    // A gain inside the measurements' noise is no lesson: the intervals must not overlap.
    if (parentResult.speedupInterval && childResult.speedupInterval &&
        !SpeedupInterval::clearlyFaster(*childResult.speedupInterval,
                                        *parentResult.speedupInterval))
        return std::nullopt;
    MemoryEntry entry;
    entry.task = task.name;
    entry.backend = backendName(backend);
    entry.shape = timingShape(task, backend);
    entry.runId = runId;
    entry.parentId = parent.id;
    entry.childId = child.id;
    entry.idea = idea(parent, child);
    entry.diff = UnifiedDiff::between(parent.source, child.source);
    entry.speedupBefore = *parentResult.speedup;
    entry.speedupAfter = *childResult.speedup;
    entry.msBefore = parentResult.candidateMs;
    entry.msAfter = childResult.candidateMs;
    return entry;
}

} // namespace kiln
