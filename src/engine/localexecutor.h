#pragma once

#include "engine/evaluator.h"
#include "engine/executor.h"

namespace kiln {

// Generation and evaluation pools on this machine: up to generationThreads policy calls at once
// (LLM calls are slow and concurrent), and the evaluator's own concurrency for verification.
class LocalExecutor : public Executor
{
public:
    LocalExecutor(Policy &policy, Evaluator &evaluator, quint64 runSecret, int generationThreads);
    QList<JobOutcome> execute(const QList<Job> &jobs, const Hooks &hooks,
                              const std::atomic<bool> &cancel) override;

private:
    // One job's steps, run on a generation and an evaluation worker thread respectively.
    void generate(const Job &job, JobOutcome &outcome, const Hooks &hooks,
                  const std::atomic<bool> &cancel);
    void evaluate(const Job &job, JobOutcome &outcome, const Hooks &hooks,
                  const std::atomic<bool> &cancel);

    Policy &m_policy;
    Evaluator &m_evaluator;
    quint64 m_runSecret;
    int m_generationThreads;
};

} // namespace kiln
