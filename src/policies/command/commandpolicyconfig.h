#pragma once

#include <QString>
#include <QStringList>

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

} // namespace kiln
