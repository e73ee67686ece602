#include "manualpolicy.h"

#include <QDateTime>

namespace kiln {

namespace {

CandidateRecord manualRecord(const QString &source, const QString &note)
{
    CandidateRecord c;
    c.operation = Operation::Manual;
    c.policy = QStringLiteral("manual");
    c.source = source;
    c.createdAt = QDateTime::currentDateTimeUtc();
    QJsonObject meta{{QStringLiteral("author"), QStringLiteral("user")}};
    if (!note.isEmpty())
        meta.insert(QStringLiteral("note"), note);
    c.policyMeta = meta;
    return c;
}

} // namespace

void ManualPolicy::submit(const QString &source, std::optional<qint64> parent, const QString &note)
{
    std::lock_guard lock(m_mutex);
    m_queue.enqueue(Submission{source, parent, note});
}

int ManualPolicy::pending() const
{
    std::lock_guard lock(m_mutex);
    return int(m_queue.size());
}

CandidateRecord ManualPolicy::makeChild(const CandidateRecord &parent, const QString &source,
                                        const QString &note)
{
    CandidateRecord c = manualRecord(source, note);
    c.runId = parent.runId;
    c.task = parent.task;
    c.parent = parent.id;
    c.generation = parent.generation + 1;
    c.island = parent.island;
    return c;
}

CandidateRecord ManualPolicy::makeRoot(qint64 runId, const QString &task, const QString &source,
                                       const QString &note)
{
    CandidateRecord c = manualRecord(source, note);
    c.runId = runId;
    c.task = task;
    return c;
}

GenerationResult ManualPolicy::generate(const GenerationRequest &request,
                                        const std::atomic<bool> &cancel)
{
    GenerationResult result;
    if (cancel.load()) {
        result.error = QStringLiteral("cancelled");
        return result;
    }
    Submission s;
    {
        std::lock_guard lock(m_mutex);
        if (m_queue.isEmpty()) {
            result.error = QStringLiteral("no manual candidate queued");
            return result;
        }
        s = m_queue.dequeue();
    }
    // A submission names its parent; otherwise it follows the engine's request.
    std::optional<qint64> parent = s.parent;
    const CandidateRecord *requested = nullptr;
    for (const CandidateRecord &p : request.parents) {
        if (!parent || p.id == *parent) {
            requested = &p;
            break;
        }
    }
    CandidateRecord c;
    if (requested) {
        c = makeChild(*requested, s.source, s.note);
    } else {
        c = manualRecord(s.source, s.note);
        c.parent = parent;
        c.generation = request.generation;
        c.island = request.island;
    }
    if (c.task.isEmpty() && request.task)
        c.task = request.task->name;
    result.candidate = c;
    if (s.source.trimmed().isEmpty()) {
        result.error = QStringLiteral("no code: the submitted source is empty");
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace kiln
