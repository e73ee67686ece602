#pragma once

#include "policies/policy.h"
#include "policies/promptbuilder.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// How the command policy runs an agent (`--policy command --command "..."`, `--param
// command.*`).
struct CommandPolicyConfig
{
    QString command;          // run by /bin/sh -c in the work folder
    int timeoutSeconds = 600; // command.timeout
    QStringList readable;     // command.read: further folders the agent may read
    QStringList writable;     // command.write: further folders it may write (its own state)
    QString sandbox;          // kiln-agent-sandbox (required)
    QString workRoot;         // where work folders are made (the system's temp folder)
    QString promptDir;        // prompt template overrides, as the llm policy's

    // The defaults for the user's agents: the state folders of the agent CLIs Kiln knows
    // (~/.claude, ~/.claude.json, ~/.codex, ~/.gemini) writable, where they install readable;
    // the sandbox from KILN_AGENT_SANDBOX (else the engine puts it beside its other sandboxes).
    static CommandPolicyConfig withDefaults(const QString &command);
    QString validate() const; // empty when usable
};

// Candidates from a coding agent's command line (Claude Code, Codex, Gemini CLI, or any
// script): Kiln writes the prompt and a work folder (AgentWorkFolder), runs the command
// (AgentCommand), and takes the candidate file it wrote, or else the code its answer printed.
// Usage is read from the agent's JSON output where its format is known (AgentOutput) and is
// recorded as unknown otherwise. Every failure (a hang, nothing written, a crash) is an ok=false
// result with the transcript kept.
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
