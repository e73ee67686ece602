#pragma once

#include "policies/command/commandpolicyconfig.h"
#include "policies/policy.h"
#include "policies/promptbuilder.h"

namespace kiln {

// Candidates from a coding agent's command line (Claude Code, Codex, Gemini CLI, or any
// script): Kiln writes the prompt and a work folder (AgentWorkFolder), runs the command
// (AgentCommand), and takes the candidate file it wrote, or else the code its answer printed.
// Usage is read from the agent's JSON output where its format is known (AgentOutput) and is
// recorded as unknown otherwise. A hang, a signal, nothing written, or a prose role whose agent
// reported an error is an ok=false result with the transcript kept.
class CommandPolicy : public Policy
{
public:
    explicit CommandPolicy(CommandPolicyConfig config);

    QString name() const override { return QStringLiteral("command"); }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;
    const CommandPolicyConfig &config() const { return m_config; }

private:
    CommandPolicyConfig m_config;
    PromptBuilder m_prompts;
};

} // namespace kiln
