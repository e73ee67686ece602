#include "policies/command/agentcommand.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace kiln {

namespace {

// stderr: its start (why it failed is usually said first).
void keepHead(QByteArray &kept, const QByteArray &more, qint64 cap, qint64 *dropped)
{
    const qint64 room = std::max<qint64>(0, cap - kept.size());
    kept.append(more.left(room));
    *dropped += std::max<qint64>(0, more.size() - room);
}

// stdout: its end, where the agent CLIs print the final message and the usage.
void keepTail(QByteArray &kept, const QByteArray &more, qint64 cap, qint64 *dropped)
{
    kept.append(more);
    if (kept.size() > cap) {
        *dropped += kept.size() - cap;
        kept.remove(0, kept.size() - cap);
    }
}

// The sandbox's first line on stderr ("kiln-agent-sandbox: landlock=7 reads=1") is Kiln's, not
// the agent's: it goes to the result's confinement.
void takeConfinementLine(AgentCommand::Result &result)
{
    static const QByteArray name = "kiln-agent-sandbox: ";
    if (!result.standardError.startsWith(name + "landlock="))
        return;
    const qsizetype end = result.standardError.indexOf('\n');
    result.confinement =
        QString::fromUtf8(result.standardError.mid(name.size(), end - name.size())).trimmed();
    result.standardError.remove(0, end < 0 ? result.standardError.size() : end + 1);
}

} // namespace

AgentCommand::Result AgentCommand::run(const Spec &spec, const std::atomic<bool> &cancel)
{
    Result result;
    result.confinement = QStringLiteral("none");
    QProcess process;
    process.setWorkingDirectory(spec.workDir);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // The user's session bus and ssh agent would run code outside the sandbox.
    for (const char *name : {"DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID"})
        environment.remove(QLatin1String(name));
    for (const QString &entry : spec.environment)
        environment.insert(entry.section(u'=', 0, 0), entry.section(u'=', 1));
    process.setProcessEnvironment(environment);
    // A session of its own, sandbox or not: its process group is then the agent and everything
    // it starts, ended together.
    process.setChildProcessModifier([] { ::setsid(); });
    QStringList arguments;
    QString program = QStringLiteral("/bin/sh");
    if (!spec.sandbox.isEmpty()) {
        program = spec.sandbox;
        arguments << QStringLiteral("--workdir") << spec.workDir;
        for (const QString &path : spec.readable)
            arguments << QStringLiteral("--read") << path;
        for (const QString &path : spec.writable)
            arguments << QStringLiteral("--write") << path;
        arguments << QStringLiteral("--") << QStringLiteral("/bin/sh");
    }
    arguments << QStringLiteral("-c") << spec.command;
    QElapsedTimer timer;
    timer.start();
    process.start(program, arguments);
    if (!process.waitForStarted(10000)) {
        result.error = QStringLiteral("cannot start %1: %2").arg(program, process.errorString());
        return result;
    }
    result.started = true;
    process.write(spec.standardInput);
    process.closeWriteChannel();
    const pid_t group = pid_t(process.processId());
    const auto drain = [&] {
        keepTail(result.standardOutput, process.readAllStandardOutput(), spec.outputCapBytes,
                 &result.droppedBytes);
        keepHead(result.standardError, process.readAllStandardError(), spec.outputCapBytes,
                 &result.droppedBytes);
    };
    while (!process.waitForFinished(100) && process.state() != QProcess::NotRunning) {
        drain();
        result.timedOut = timer.elapsed() > spec.timeoutMs;
        result.cancelled = cancel;
        if (result.timedOut || result.cancelled) {
            ::kill(-group, SIGKILL);
            process.kill();
            process.waitForFinished(5000);
            break;
        }
    }
    // What the agent left running in its group (a server, a watcher) ends with it.
    ::kill(-group, SIGKILL);
    drain();
    result.ms = timer.nsecsElapsed() / 1e6;
    if (!result.timedOut && !result.cancelled) {
        result.crashed = process.exitStatus() != QProcess::NormalExit;
        result.exitCode = result.crashed ? -1 : process.exitCode();
    }
    takeConfinementLine(result);
    return result;
}

} // namespace kiln
