#pragma once

#include "policies/policy.h"

#include <QQueue>
#include <mutex>

namespace kiln {

// Candidates written by a person ("can you beat the search?"). The editor submits sources, each
// optionally as a child of an existing node; generate() pops them in submission order.
class ManualPolicy : public Policy
{
public:
    struct Submission
    {
        QString source;
        std::optional<qint64> parent;
        QString note; // free text kept in policyMeta.note
    };

    QString name() const override { return QStringLiteral("manual"); }
    bool playsRoles() const override { return false; }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;

    void submit(const QString &source, std::optional<qint64> parent = std::nullopt,
                const QString &note = QString());
    int pending() const;

    // A candidate with Operation::Manual as a child of parent (same task, island; next
    // generation), ready to store and evaluate.
    static CandidateRecord makeChild(const CandidateRecord &parent, const QString &source,
                                     const QString &note = QString());
    // A hand-written root node of a run.
    static CandidateRecord makeRoot(qint64 runId, const QString &task, const QString &source,
                                    const QString &note = QString());

private:
    mutable std::mutex m_mutex;
    QQueue<Submission> m_queue;
};

} // namespace kiln
