#pragma once

// The golden tests' fixed workspace: runs with every kind of judgement, built from fixed values
// only (ids, dates, timings, token counts), so whatever is rendered from it is the same on
// every machine and every day.
//
//   run 1 softmax on cuda, evolve with an LLM, strict: candidate 1 passes unconfirmed, 2 does
//         not compile, 3 is wrong, 4 is flagged, 5 is the confirmed best (disturbed), 6 repeats
//         5's source, 7 is a person's candidate never judged, 8 (the agents' round) times out
//   run 2 vector_add on the CPU, best-of-n offline, lenient, cancelled: candidate 9 passes
//   run 3 run 2 rejudged strictly: candidate 10, the same source, is wrong
//   run 4 two KernelBench problems on pytorch: candidate 11 passes (with a torch.compile
//         speedup), 12 is wrong

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/runrecord.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace kiln::test {

class GoldenWorkspace
{
public:
    struct Run
    {
        RunRecord record; // id set: the id the store gives it in a new database
        QMap<QString, QJsonObject> taskSnapshots;
        QList<CandidateRecord> candidates;          // ids set likewise, in insertion order
        QMap<qint64, EvaluationResult> evaluations; // by candidate id; none: never judged
    };

    static QList<Run> runs();
    // Writes runs() into a new database at `path`: empty on success, else what failed.
    static QString write(const QString &path);
};

} // namespace kiln::test
