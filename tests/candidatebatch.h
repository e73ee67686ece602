#pragma once

// The verifier tests' common start: every candidate file of some folders with the expectation
// in its first line (candidateexpectation.h), all submitted at once to a VerifierPool.

#include "candidateexpectation.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifierpool.h"

#include <QDir>
#include <QFuture>
#include <QHash>
#include <QList>

namespace kiln::testing {

// The candidates of `folder` whose names match `pattern` ("*.cpp"), in name order.
inline QList<Expectation> expectationsIn(const QString &folder, const QString &pattern)
{
    QList<Expectation> expectations;
    const QDir dir(folder);
    for (const QString &name : dir.entryList({pattern}, QDir::Files, QDir::Name))
        expectations.append(readExpectation(dir.filePath(name)));
    return expectations;
}

// Judges every candidate at once (the pool decides how many run together) and returns the
// results by path; *missing names a candidate whose task is not in `tasks` (nothing is judged
// then).
inline QHash<QString, EvaluationResult> judgeAll(VerifierPool &pool, const TaskLibrary &tasks,
                                                 Backend backend,
                                                 const QList<Expectation> &expectations,
                                                 quint64 secret, QString *missing)
{
    QHash<QString, EvaluationResult> results;
    for (const Expectation &e : expectations) {
        if (!tasks.contains(e.task)) {
            *missing = e.path;
            return results;
        }
    }
    QList<QPair<QString, QFuture<EvaluationResult>>> futures;
    for (const Expectation &e : expectations)
        futures.append(
            {e.path, pool.submit(*tasks.task(e.task), backend, readFile(e.path), secret)});
    for (auto &[path, future] : futures)
        results.insert(path, future.result());
    return results;
}

} // namespace kiln::testing
