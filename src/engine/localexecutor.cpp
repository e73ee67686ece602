#include "localexecutor.h"

#include "engine/shapeproposal.h"

#include <QElapsedTimer>
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace kiln {

namespace {

void bracket(const std::function<void(bool)> &hook, bool started)
{
    if (hook)
        hook(started);
}

} // namespace

LocalExecutor::LocalExecutor(Policy &policy, Evaluator &evaluator, quint64 runSecret,
                             int generationThreads)
    : m_policy(policy), m_evaluator(evaluator), m_runSecret(runSecret),
      m_generationThreads(std::max(1, generationThreads))
{
}

QList<JobOutcome> LocalExecutor::execute(const QList<Job> &jobs, const Hooks &hooks,
                                         const std::atomic<bool> &cancel)
{
    QList<JobOutcome> outcomes(jobs.size());
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<int> toGenerate;
    std::deque<int> toEvaluate;
    int generatorsLeft = 0;
    for (int i = 0; i < jobs.size(); ++i)
        toGenerate.push_back(i);

    auto generateWorker = [&] {
        for (;;) {
            int i;
            {
                std::lock_guard lock(mutex);
                if (toGenerate.empty())
                    break;
                i = toGenerate.front();
                toGenerate.pop_front();
            }
            generate(jobs[i], outcomes[i], hooks, cancel);
            std::lock_guard lock(mutex);
            if (outcomes[i].generation.ok)
                toEvaluate.push_back(i);
            ready.notify_all();
        }
        std::lock_guard lock(mutex);
        --generatorsLeft;
        ready.notify_all();
    };

    auto evaluateWorker = [&] {
        for (;;) {
            int i;
            {
                std::unique_lock lock(mutex);
                ready.wait(lock, [&] { return !toEvaluate.empty() || generatorsLeft == 0; });
                if (toEvaluate.empty())
                    break;
                i = toEvaluate.front();
                toEvaluate.pop_front();
            }
            evaluate(jobs[i], outcomes[i], hooks, cancel);
        }
    };

    const int generators = std::min<int>(m_generationThreads, std::max<qsizetype>(1, jobs.size()));
    const int evaluators =
        std::min<int>(std::max(1, m_evaluator.concurrency()), std::max<qsizetype>(1, jobs.size()));
    generatorsLeft = generators;
    std::vector<std::thread> threads;
    for (int i = 0; i < generators; ++i)
        threads.emplace_back(generateWorker);
    for (int i = 0; i < evaluators; ++i)
        threads.emplace_back(evaluateWorker);
    for (std::thread &t : threads)
        t.join();
    return outcomes;
}

void LocalExecutor::generate(const Job &job, JobOutcome &outcome, const Hooks &hooks,
                             const std::atomic<bool> &cancel)
{
    if (job.existing) {
        outcome.generation.ok = !job.existing->source.isEmpty();
        outcome.generation.candidate = *job.existing;
        return;
    }
    if (cancel)
        return;
    QElapsedTimer timer;
    timer.start();
    bracket(hooks.generating, true);
    outcome.generation = m_policy.generate(job.request, cancel);
    bracket(hooks.generating, false);
    outcome.generationSeconds = timer.nsecsElapsed() * 1e-9;
    if (hooks.generated)
        hooks.generated(job, outcome.generation);
}

void LocalExecutor::evaluate(const Job &job, JobOutcome &outcome, const Hooks &hooks,
                             const std::atomic<bool> &cancel)
{
    if (job.existingEvaluation) {
        outcome.evaluation = job.existingEvaluation;
        return;
    }
    if (cancel)
        return;
    if (hooks.reuse) {
        if (std::optional<EvaluationResult> reused = hooks.reuse(job, outcome.generation)) {
            outcome.evaluation = std::move(reused);
            return;
        }
    }
    QElapsedTimer timer;
    timer.start();
    bracket(hooks.evaluating, true);
    // Shapes the agents strategy's tester proposed join this candidate's checks.
    const Task checked =
        ShapeProposal::forCandidate(*job.request.task, outcome.generation.candidate);
    const EvaluationResult result = m_evaluator.evaluate(
        checked, job.request.backend, outcome.generation.candidate.source, m_runSecret, cancel);
    bracket(hooks.evaluating, false);
    outcome.evaluationSeconds = timer.nsecsElapsed() * 1e-9;
    if (cancel)
        return; // a cancelled evaluation is not a verdict
    outcome.evaluation = result;
    if (hooks.evaluated)
        hooks.evaluated(job, outcome.generation, result);
    if (hooks.confirm && !cancel) {
        bracket(hooks.evaluating, true);
        std::optional<EvaluationResult> confirmed = hooks.confirm(job, outcome.generation, result);
        bracket(hooks.evaluating, false);
        if (confirmed)
            outcome.evaluation = std::move(confirmed);
    }
    if (hooks.settled)
        hooks.settled(outcome.generation);
}

} // namespace kiln
