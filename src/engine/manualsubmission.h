#pragma once

#include "core/backend.h"
#include "core/candidaterecord.h"
#include "core/evaluationresult.h"

#include <atomic>
#include <functional>
#include <optional>

namespace kiln {

class Evaluator;
class RunStore;
class TaskLibrary;
struct Task;

// Hand-written candidates ("can you beat the search?"). kiln-cli submit, kiln-cli eval --db and
// the window's editor and file drops all store them this way.
class ManualSubmission
{
public:
    struct Request
    {
        qint64 runId = 0;
        std::optional<qint64> parent; // none: a new root
        QString task;                 // a root's task; empty: the run's first task
        QString source;
        QString note;
    };
    struct Outcome
    {
        CandidateRecord candidate; // as stored, id filled
        EvaluationResult result;
    };

    // Adds the candidate to a search run as a manual node (stored before it is judged, so a
    // crash of the verifier loses nothing), then judges it with the run's backend on the run's
    // own inputs. Nothing with *error (and *usage true when the request, not the machine, was at
    // fault); a cancelled evaluation stores no verdict.
    // `stored`, when given, hears of the node as soon as it is stored.
    static std::optional<Outcome>
    submit(RunStore &store, const TaskLibrary &tasks, Evaluator &evaluator, const Request &request,
           const std::atomic<bool> &cancel, QString *error, bool *usage = nullptr,
           const std::function<void(const CandidateRecord &)> &stored = {});
    // Stores an evaluation made outside any search as a finished one-candidate run of kind
    // "eval" (`kiln-cli eval --db`); `origin` names where the source came from. Returns the run.
    static qint64 recordEvaluation(RunStore &store, const Task &task, Backend backend, quint64 seed,
                                   const QString &origin, const QString &source,
                                   const EvaluationResult &result, QString *error);
};

} // namespace kiln
