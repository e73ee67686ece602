#pragma once

#include "policies/policy.h"

#include <QHash>
#include <QList>
#include <mutex>

namespace kiln {

// Re-issues the generations of a recorded run in their recorded order (kiln-cli run
// --replay-run ID), typically to re-evaluate them on other hardware. The engine loads the
// run's candidates from the store and hands them over in creation order.
//
// Each generate() returns the next recorded generation unchanged (source, prompt, reasoning,
// response, tokens, operation), whatever the request asked, with policy "replay" and
// policyMeta.replay_of = the original id. Parent links are mapped to the new run: tell the
// policy the id each replayed candidate got (noteStored) and later children point at it; the
// original parent ids stay in policyMeta.replay_parent / replay_second_parent.
class ReplayPolicy : public Policy
{
public:
    explicit ReplayPolicy(QList<CandidateRecord> recorded, qint64 sourceRunId = 0);

    QString name() const override { return QStringLiteral("replay"); }
    bool playsRoles() const override { return false; }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;

    // The record the next generate() will return, if any (lets the engine build a request with
    // the recorded operation and parents).
    std::optional<CandidateRecord> peekNext() const;
    int size() const;
    int remaining() const;
    // Maps an original candidate id to the id its replay got in the new run.
    void noteStored(qint64 originalId, qint64 newId);
    // Convenience: reads replay_of from a stored replayed candidate.
    void noteStored(const CandidateRecord &stored);
    std::optional<qint64> mappedId(qint64 originalId) const;

private:
    mutable std::mutex m_mutex;
    QList<CandidateRecord> m_records;
    qsizetype m_next = 0;
    qint64 m_sourceRunId = 0;
    QHash<qint64, qint64> m_idMap;
};

} // namespace kiln
