#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace kiln {

// What a coding agent's command printed, read as the documented output format of the agent
// CLI that printed it: Claude Code's `-p --output-format json` (one result object), Codex's
// `exec --json` (JSON Lines of events) or Gemini CLI's `--output-format json`. Anything else is
// text: the answer is stdout as it is and the usage is unknown (`format` says which it was).
struct AgentOutput
{
    QString format; // "claude-code", "codex", "gemini-cli", "text" or "malformed-json"
    QString text;   // the agent's final message
    QString error;  // the agent's own error, where its output reports one
    bool usageReported = false;
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cachedInputTokens = 0;  // read from a prompt cache (counted in inputTokens too)
    std::optional<double> costUsd; // only where the agent reports it

    static AgentOutput parse(const QByteArray &standardOutput);
};

} // namespace kiln
