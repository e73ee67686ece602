#pragma once

#include "core/evaluationresult.h"
#include "policies/policy.h"

#include <QList>
#include <atomic>
#include <functional>
#include <optional>

namespace kiln {

// One unit of work: generate a candidate, then (if code came back) verify it.
struct Job
{
    int index = 0; // position in the round
    GenerationRequest request;
    // Filled when the job resumes a candidate already generated (and maybe evaluated) before a
    // crash: the executor then skips the finished steps.
    std::optional<CandidateRecord> existing;
    std::optional<EvaluationResult> existingEvaluation;
};

struct JobOutcome
{
    GenerationResult generation;
    std::optional<EvaluationResult> evaluation;
    double generationSeconds = 0.0;
    double evaluationSeconds = 0.0;
};

// Runs a round of jobs with concurrent generation and evaluation. The local executor uses
// thread pools; a cluster executor can send the same jobs elsewhere.
class Executor
{
public:
    virtual ~Executor() = default;
    // Hooks run on worker threads as soon as each step finishes, so the engine can persist the
    // candidate before its evaluation starts (crash safety). Returns the outcomes in job order.
    struct Hooks
    {
        std::function<void(const Job &, GenerationResult &)> generated;
        std::function<void(const Job &, const GenerationResult &, const EvaluationResult &)>
            evaluated;
        // Before a candidate is judged: a judgement to take instead of judging it (a duplicate
        // of an earlier source). Called in the order candidates leave the evaluation queue, so
        // the earlier one is being judged or done; it may wait for it.
        std::function<std::optional<EvaluationResult>(const Job &, const GenerationResult &)> reuse;
        // After `evaluated`: a re-measurement to take instead of the judgement (the candidate is
        // about to become a best). Runs on the evaluation worker, outside any engine lock.
        std::function<std::optional<EvaluationResult>(const Job &, const GenerationResult &,
                                                      const EvaluationResult &)>
            confirm;
        // Every hook above is done with this candidate (waiters on a duplicate may go on).
        std::function<void(const GenerationResult &)> settled;
        // Bracket each policy call and each evaluation (true before, false after), so a live
        // view can show what is in flight.
        std::function<void(bool started)> generating;
        std::function<void(bool started)> evaluating;
    };
    virtual QList<JobOutcome> execute(const QList<Job> &jobs, const Hooks &hooks,
                                      const std::atomic<bool> &cancel) = 0;
};

} // namespace kiln
