#include "replaypolicy.h"

#include <QDateTime>

namespace kiln {

ReplayPolicy::ReplayPolicy(QList<CandidateRecord> recorded, qint64 sourceRunId)
    : m_records(std::move(recorded)), m_sourceRunId(sourceRunId)
{
}

std::optional<CandidateRecord> ReplayPolicy::peekNext() const
{
    std::lock_guard lock(m_mutex);
    if (m_next >= m_records.size())
        return std::nullopt;
    return m_records.at(m_next);
}

int ReplayPolicy::size() const
{
    std::lock_guard lock(m_mutex);
    return int(m_records.size());
}

int ReplayPolicy::remaining() const
{
    std::lock_guard lock(m_mutex);
    return int(m_records.size() - m_next);
}

void ReplayPolicy::noteStored(qint64 originalId, qint64 newId)
{
    std::lock_guard lock(m_mutex);
    m_idMap.insert(originalId, newId);
}

void ReplayPolicy::noteStored(const CandidateRecord &stored)
{
    const QJsonValue original = stored.policyMeta.value(QStringLiteral("replay_of"));
    if (original.isDouble() && stored.id != 0)
        noteStored(original.toInteger(), stored.id);
}

std::optional<qint64> ReplayPolicy::mappedId(qint64 originalId) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_idMap.constFind(originalId);
    if (it == m_idMap.constEnd())
        return std::nullopt;
    return it.value();
}

GenerationResult ReplayPolicy::generate(const GenerationRequest &request,
                                        const std::atomic<bool> &cancel)
{
    GenerationResult result;
    if (cancel.load()) {
        result.error = QStringLiteral("cancelled");
        return result;
    }
    CandidateRecord original;
    {
        std::lock_guard lock(m_mutex);
        if (m_next >= m_records.size()) {
            result.error = QStringLiteral("replay exhausted: all %1 recorded generations were "
                                          "replayed")
                               .arg(m_records.size());
            return result;
        }
        original = m_records.at(m_next++);
    }

    CandidateRecord &c = result.candidate;
    c = original;
    c.id = 0;
    c.runId = 0;
    c.policy = name();
    c.createdAt = QDateTime::currentDateTimeUtc();
    if (c.task.isEmpty() && request.task)
        c.task = request.task->name;
    QJsonObject meta = original.policyMeta;
    meta.insert(QStringLiteral("replay_of"), original.id);
    meta.insert(QStringLiteral("replay_policy"), original.policy);
    if (m_sourceRunId != 0)
        meta.insert(QStringLiteral("replay_run"), m_sourceRunId);
    // The original transcript's cost was paid when it was recorded.
    if (meta.contains(QStringLiteral("cost")))
        meta.insert(QStringLiteral("cost_paid"), 0.0);
    meta.insert(QStringLiteral("cache_hit"), true);

    auto mapParent = [&](const std::optional<qint64> &parent, const QString &metaKey) {
        if (!parent)
            return std::optional<qint64>();
        meta.insert(metaKey, *parent);
        return mappedId(*parent);
    };
    c.parent = mapParent(original.parent, QStringLiteral("replay_parent"));
    c.secondParent = mapParent(original.secondParent, QStringLiteral("replay_second_parent"));
    // A recorded parent not replayed (yet): fall back to what the engine asked for.
    if (original.parent && !c.parent && !request.parents.isEmpty())
        c.parent = request.parents.at(0).id;
    if (original.secondParent && !c.secondParent && request.parents.size() > 1)
        c.secondParent = request.parents.at(1).id;
    c.policyMeta = meta;

    if (c.source.trimmed().isEmpty()) {
        // The recorded generation failed (no code, HTTP error): replay the failure as it was.
        // The policy records "error"; the engine adds "failure" for every failed generation.
        QString recordedError = original.policyMeta.value(QStringLiteral("error")).toString();
        if (recordedError.isEmpty())
            recordedError = original.policyMeta.value(QStringLiteral("failure")).toString();
        result.error = recordedError.isEmpty()
                           ? QStringLiteral("no code (replayed from candidate %1)").arg(original.id)
                           : recordedError + QStringLiteral(" (replayed)");
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace kiln
