#include "policies/command/commandpolicyconfig.h"

#include <QDir>
#include <QFileInfo>

namespace kiln {

CommandPolicyConfig CommandPolicyConfig::withDefaults(const QString &command)
{
    CommandPolicyConfig config;
    config.command = command;
    config.workRoot = QDir::tempPath();
    const QString home = QDir::homePath();
    for (const char *state : {".claude", ".claude.json", ".codex", ".gemini"})
        config.writable << home + u'/' + QLatin1String(state);
    // Not ~/.local itself: the window's workspace database lives in ~/.local/share/Kiln.
    for (const char *install : {".local/bin", ".local/share/claude", ".local/share/pnpm", ".nvm",
                                ".npm-global", ".bun", ".volta"})
        config.readable << home + u'/' + QLatin1String(install);
    config.sandbox = qEnvironmentVariable("KILN_AGENT_SANDBOX");
    return config;
}

QString CommandPolicyConfig::validate() const
{
    if (command.trimmed().isEmpty())
        return QStringLiteral(
            "--policy command needs --command \"...\" (the agent's command line)");
    if (timeoutSeconds < 1)
        return QStringLiteral("command.timeout must be a positive number of seconds");
    if (!QFileInfo(sandbox).isExecutable())
        return QStringLiteral("kiln-agent-sandbox not found%1 (set KILN_AGENT_SANDBOX)")
            .arg(sandbox.isEmpty() ? QString() : QStringLiteral(" at ") + sandbox);
    return {};
}

} // namespace kiln
