#pragma once

#include "engine/evaluator.h"
#include "tasks/tasklibrary.h"

#include <QString>
#include <atomic>
#include <optional>

namespace kiln {

class RunStore;

// `kiln-cli rejudge`: a run's candidates judged again by another verifier, stored as a new run
// that keeps their order, lineage, sources and generation cost, so the two runs' curves can be
// compared point by point (the leaky-verifier lesson: a lenient run judged strictly).
class Rejudge
{
public:
    struct Outcome
    {
        qint64 runId = 0;  // the new run
        int evaluated = 0; // candidates with a source, judged again
        int changed = 0;   // of them, a verdict different from the original run's
    };
    // verifier: "strict" or "lenient"; the evaluator must judge that way. Evaluates up to
    // evaluator.concurrency() candidates at once. nullopt with *error when the run is unknown or
    // names a task the library lacks.
    static std::optional<Outcome> run(RunStore &store, const TaskLibrary &library,
                                      Evaluator &evaluator, qint64 runId, const QString &verifier,
                                      const std::atomic<bool> &cancel, QString *error);
};

} // namespace kiln
