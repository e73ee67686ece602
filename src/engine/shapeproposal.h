#pragma once

#include "core/backend.h"
#include "core/candidaterecord.h"
#include "tasks/task.h"

#include <QJsonArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

// The agents strategy's tester proposes extra problem sizes; the verifier adds those that pass
// these rules to the candidate's correctness checks (never to its timing): every size of the
// task named, each a whole number from 1 to the largest value the task's correctness shapes use,
// no more data than the largest of them moves, not a shape the task already checks, at most
// kMaximum of them. The answer is any text with one JSON object {"shapes": [{"n": 7}, ...]}.
class ShapeProposal
{
public:
    static constexpr int kMaximum = 4;

    struct Outcome
    {
        QList<ShapeConfig> accepted;
        QStringList rejected; // one reason per refused proposal
        QString error;        // no JSON object with a "shapes" array in the answer
    };
    static Outcome parse(const QString &answer, const Task &task);
    static QJsonArray toJson(const QList<ShapeConfig> &shapes);
    static QList<ShapeConfig> fromJson(const QJsonArray &array);
    // The task with `extra` appended to its correctness shapes and its timing shapes pinned, so
    // the candidate is timed exactly as without them.
    static Task withShapes(const Task &task, const QList<ShapeConfig> &extra);
    // The task as a candidate is judged on: with the tester shapes its policy_meta carries.
    static Task forCandidate(const Task &task, const CandidateRecord &candidate);
    // The shapes withShapes added to a task (what a cluster worker must add to its own copy).
    static QList<ShapeConfig> added(const Task &task);
};

} // namespace kiln
