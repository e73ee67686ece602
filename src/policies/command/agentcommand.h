#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <atomic>

namespace kiln {

// One run of a coding agent's command line: `/bin/sh -c COMMAND` in its work folder, under
// kiln-agent-sandbox where one is given (Landlock: the folder, the system and the listed paths
// only), the prompt on its stdin, in a session of its own whose process group is ended at the
// time limit, on cancel, and when the command itself ends. Its output is kept up to a bound, so
// a chatty agent cannot fill the memory or the database.
class AgentCommand
{
public:
    struct Spec
    {
        QString command;
        QString workDir;
        QString sandbox; // kiln-agent-sandbox; empty runs the command unconfined (no caller does)
        QStringList readable;
        QStringList writable;
        QStringList environment; // NAME=VALUE added to the engine's own environment
        QByteArray standardInput;
        int timeoutMs = 600000;
        qint64 outputCapBytes = 1 << 20; // per stream: stdout's end, stderr's start
    };
    struct Result
    {
        bool started = false;
        bool timedOut = false;
        bool cancelled = false;
        bool crashed = false; // ended by a signal
        int exitCode = -1;
        QByteArray standardOutput;
        QByteArray standardError;
        qint64 droppedBytes = 0; // beyond the cap, both streams
        double ms = 0.0;
        QString confinement; // the sandbox's "landlock=N reads=N unix_sockets=N", or "none"
        QString error;       // why it did not start
    };

    static Result run(const Spec &spec, const std::atomic<bool> &cancel);
};

} // namespace kiln
