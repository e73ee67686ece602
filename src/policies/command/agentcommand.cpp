#include "policies/command/agentcommand.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace kiln {

namespace {

void keep(QByteArray &kept, const QByteArray &more, qint64 cap, qint64 *dropped)
{
    const qint64 room = std::max<qint64>(0, cap - kept.size());
    kept.append(more.left(room));
    *dropped += std::max<qint64>(0, more.size() - room);
}

// The sandbox's first line on stderr ("kiln-agent-sandbox: landlock=7 reads=1") is Kiln's, not
// the agent's: it goes to the result's confinement.
void takeConfinementLine(AgentCommand::Result &result)
{
    static const QByteArray prefix = "kiln-agent-sandbox: landlock=";
    if (!result.standardError.startsWith(prefix))
        return;
    const qsizetype end = result.standardError.indexOf('\n');
    result.confinement = QString::fromUtf8(result.standardError.mid(20, end - 20)).trimmed();
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
    while (!process.waitForFinished(100)) {
        keep(result.standardOutput, process.readAllStandardOutput(), spec.outputCapBytes,
             &result.droppedBytes);
        keep(result.standardError, process.readAllStandardError(), spec.outputCapBytes,
             &result.droppedBytes);
        result.timedOut = timer.elapsed() > spec.timeoutMs;
        result.cancelled = cancel;
        if (result.timedOut || result.cancelled) {
            // The sandbox made itself a session leader: its group is the agent and its children.
            ::kill(-pid_t(process.processId()), SIGKILL);
            process.kill();
            process.waitForFinished(5000);
            break;
        }
        if (process.state() == QProcess::NotRunning)
            break;
    }
    keep(result.standardOutput, process.readAllStandardOutput(), spec.outputCapBytes,
         &result.droppedBytes);
    keep(result.standardError, process.readAllStandardError(), spec.outputCapBytes,
         &result.droppedBytes);
    result.ms = timer.nsecsElapsed() / 1e6;
    if (!result.timedOut && !result.cancelled)
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    takeConfinementLine(result);
    return result;
}

} // namespace kiln
