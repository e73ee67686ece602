#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"

#include <QHash>
#include <QString>

namespace kiln {

// The trajectory log the agents strategy's roles share: one line per earlier round of the
// trajectory a candidate belongs to (its run, task and island: the trajectory's index), oldest
// first and at most the last kRounds, with the plan that round followed and what the verifier
// made of its kernel. Rounds that did not lead to the candidate are there too.
class TrajectoryLog
{
public:
    static constexpr int kRounds = 8;
    static QString text(qint64 candidateId, const QHash<qint64, CandidateRecord> &candidates,
                        const QHash<qint64, EvaluationResult> &evaluations);
};

} // namespace kiln
