#pragma once

#include "engine/evaluator.h"
#include "policies/policy.h"

#include <QJsonObject>

namespace kiln {

// The agents strategy's roles (docs/strategies.md "agents"), as a policy in front of the run's
// own: a request that asks for them becomes a profile of the parent, then four generations of the
// wrapped policy, each with its own prompt template, tokens and transcript:
//   profiler: the parent's profile and verifier data -> a diagnosis;
//   planner:  the diagnosis -> a plan;
//   coder:    the plan -> the kernel (the candidate's source);
//   tester:   the kernel -> extra shapes for its correctness checks (ShapeProposal).
// Every role reads the trajectory log. The candidate is the coder's, charged the tokens of all
// four; the steps go in its policy_meta ("agent_steps") for the transcript panel. Any other
// request, and every request to a policy that does not play roles (replay, manual), goes
// straight to the wrapped policy.
class AgentPipeline : public Policy
{
public:
    AgentPipeline(Policy &policy, Evaluator &evaluator, quint64 runSecret);

    QString name() const override { return m_policy.name(); }
    bool isSimulated() const override { return m_policy.isSimulated(); }
    QString refusal(const Task &task, Backend backend) const override
    {
        return m_policy.refusal(task, backend);
    }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;

    static QStringList roles(); // in order: profiler, planner, coder, tester

private:
    GenerationResult runRole(const GenerationRequest &base, const QString &role,
                             const std::atomic<bool> &cancel);
    static QJsonObject stepJson(const QString &role, const GenerationResult &result);
    StageResult profileParent(const GenerationRequest &request, const std::atomic<bool> &cancel);

    Policy &m_policy;
    Evaluator &m_evaluator;
    quint64 m_runSecret;
};

} // namespace kiln
