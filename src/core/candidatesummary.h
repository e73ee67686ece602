#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/operation.h"
#include "core/verdict.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// The light part of a candidate and its latest evaluation: what the tree, the table and the
// tooltips need. Source, transcript and stage data stay in the store until a candidate is
// selected, so a run of 100,000 candidates fits in memory.
struct CandidateSummary
{
    qint64 id = 0;
    QString task;
    std::optional<qint64> parent;
    std::optional<qint64> secondParent;
    Operation operation = Operation::Sample;
    int generation = 0;
    int island = 0;
    qint64 sampleIndex = -1;
    int round = -1;
    QString policy;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 reasoningTokens = 0;
    qint64 reasoningLength = 0;
    QDateTime createdAt;

    bool evaluated = false;
    Verdict verdict = Verdict::Crash;
    bool correct = false;
    std::optional<double> speedup;
    std::optional<double> speedupLow; // the speedup's 95 % interval
    std::optional<double> speedupHigh;
    bool confirmed = false;            // re-measured before it became the run's best
    std::optional<qint64> duplicateOf; // same source as this earlier candidate: its judgement
    std::optional<double> candidateMs;
    double evaluationMs = 0.0; // sum of stage times
    QStringList flagIds;
    QString firstFlag; // "id: message" of the first flag, for tooltips
    QString summary;

    bool ghost = false;       // evicted from the population, kept so lineage never breaks
    bool placeholder = false; // referenced as a parent but not stored in this run

    qint64 totalTokens() const { return promptTokens + completionTokens + reasoningTokens; }
    // "pass", "wrong", ... or "pending" before the verifier has spoken.
    QString verdictText() const;
    bool isBestCandidate() const { return evaluated && verdict == Verdict::Pass && speedup; }
    // The speedup with its interval, or empty when there is none.
    std::optional<SpeedupInterval> speedupInterval() const;

    static CandidateSummary fromRecord(const CandidateRecord &record);
    void applyEvaluation(const EvaluationResult &result);
    // Shares the buffers of values that repeat over a run (task, policy, flag ids) with every
    // other summary: a run of 100,000 candidates holds each such string once.
    void shareRepeatedStrings();
    static QString shared(const QString &value); // one buffer per distinct value
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::CandidateSummary)
