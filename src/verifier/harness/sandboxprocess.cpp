#include "verifier/harness/sandboxprocess.h"

#include "sandbox/protocol.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kiln {

namespace {

constexpr qint64 kStderrTailBytes = 4096;

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

} // namespace

SandboxProcess::SandboxProcess(SandboxSettings settings) : m_settings(std::move(settings))
{
    // A write to a sandbox that just died must be an error return, not a signal that ends the
    // engine.
    static std::once_flag once;
    std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

SandboxProcess::~SandboxProcess()
{
    kill();
    if (m_buffer)
        ::munmap(m_buffer, static_cast<size_t>(m_bufferSize));
    closeFd(m_bufferFd);
}

bool SandboxProcess::mapBuffer(qint64 bytes)
{
    if (::ftruncate(m_bufferFd, bytes) != 0)
        return false;
    void *mapped = m_buffer ? ::mremap(m_buffer, static_cast<size_t>(m_bufferSize),
                                       static_cast<size_t>(bytes), MREMAP_MAYMOVE)
                            : ::mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
                                     MAP_SHARED, m_bufferFd, 0);
    if (mapped == MAP_FAILED)
        return false;
    m_buffer = static_cast<char *>(mapped);
    m_bufferSize = bytes;
    return true;
}

bool SandboxProcess::createBuffer(qint64 bytes, QString *error)
{
    m_bufferFd = ::memfd_create("kiln-buffers", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    // Sealed against shrinking: a sandbox that truncated the buffer under our mapping would
    // kill the engine with SIGBUS on its next read. Growing stays possible.
    if (m_bufferFd >= 0)
        ::fcntl(m_bufferFd, F_ADD_SEALS, F_SEAL_SHRINK);
    if (m_bufferFd < 0 || !mapBuffer(bytes)) {
        *error = QStringLiteral("cannot create the shared buffer: %1")
                     .arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

QList<QByteArray> SandboxProcess::commandLine(const QString &workDir) const
{
    QList<QByteArray> args;
    for (const QString &word : m_settings.profilerCommand)
        args << word.toLocal8Bit();
    args << QList<QByteArray>{m_settings.executable.toLocal8Bit(),
                              "--workdir",
                              workDir.toLocal8Bit(),
                              "--cpu-seconds",
                              QByteArray::number(m_settings.cpuSeconds),
                              "--address-space-mb",
                              QByteArray::number(m_settings.addressSpaceMb),
                              "--flush-bytes",
                              QByteArray::number(m_settings.flushBytes)};
    if (m_settings.threads > 0)
        args << "--threads" << QByteArray::number(m_settings.threads);
    for (const QString &extra : m_settings.extraArguments)
        args << extra.toLocal8Bit();
    return args;
}

// posix_spawn's result; the child's ends of the pipes are the parent's to close.
QList<QByteArray> SandboxProcess::profiledEnvironment(const QString &workDir)
{
    QList<QByteArray> environment{
        "GLIBC_TUNABLES=glibc.malloc.tcache_count=0", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C",
        "HOME=" + workDir.toLocal8Bit(), "TMPDIR=" + workDir.toLocal8Bit()};
    if (const QByteArray visible = qgetenv("CUDA_VISIBLE_DEVICES"); !visible.isEmpty())
        environment << "CUDA_VISIBLE_DEVICES=" + visible;
    return environment;
}

int SandboxProcess::spawn(QList<QByteArray> args, int requestFd, int replyFd, int stderrFd,
                          const QString &workDir)
{
    std::vector<char *> argv;
    for (QByteArray &arg : args)
        argv.push_back(arg.data());
    argv.push_back(nullptr);
    // The sandbox starts with an environment of its own; a profiling sandbox (never for
    // untrusted code) inherits ours so a profiler's injection variables reach it.
    // One variable only, read by glibc at start: no per-thread cache of freed memory, so every
    // allocation passes through the poison (protocol.h, "poison").
    char tunables[] = "GLIBC_TUNABLES=glibc.malloc.tcache_count=0";
    char *sandboxEnvironment[] = {tunables, nullptr};
    char **envp = m_settings.profiling ? environ : sandboxEnvironment;
    QList<QByteArray> profiled = profiledEnvironment(workDir);
    std::vector<char *> profiledPointers;
    for (QByteArray &variable : profiled)
        profiledPointers.push_back(variable.data());
    profiledPointers.push_back(nullptr);
    if (!m_settings.profilerCommand.isEmpty())
        envp = profiledPointers.data();

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, requestFd, sandbox::kRequestFd);
    posix_spawn_file_actions_adddup2(&actions, replyFd, sandbox::kReplyFd);
    posix_spawn_file_actions_adddup2(&actions, stderrFd, sandbox::kDiagnosticFd);
    posix_spawn_file_actions_adddup2(&actions, m_bufferFd, sandbox::kBufferFd);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own process group, so the watchdog can kill everything the candidate started.
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigfillset(&defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF);
    const int rc = ::posix_spawn(&m_pid, argv[0], &actions, &attributes, argv.data(), envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return rc;
}

bool SandboxProcess::start(const QString &workDir, qint64 bufferBytes, int timeoutMs,
                           QString *error, const std::atomic<bool> *cancel)
{
    m_workDir = workDir;
    if (!createBuffer(qMax<qint64>(bufferBytes, 4096), error))
        return false;
    int requestPipe[2], replyPipe[2], stderrPipe[2];
    if (::pipe2(requestPipe, O_CLOEXEC) != 0 || ::pipe2(replyPipe, O_CLOEXEC) != 0 ||
        ::pipe2(stderrPipe, O_CLOEXEC) != 0) {
        *error = QStringLiteral("cannot create pipes");
        return false;
    }
    const int rc =
        spawn(commandLine(workDir), requestPipe[0], replyPipe[1], stderrPipe[1], workDir);
    ::close(requestPipe[0]);
    ::close(replyPipe[1]);
    ::close(stderrPipe[1]);
    m_requestFd = requestPipe[1];
    m_replyFd = replyPipe[0];
    m_stderrFd = stderrPipe[0];
    if (rc != 0) {
        m_pid = -1;
        *error = QStringLiteral("cannot start %1: %2")
                     .arg(m_settings.executable, QString::fromLocal8Bit(std::strerror(rc)));
        return false;
    }
    const Reply ready = waitForReply(timeoutMs, cancel);
    if (ready.status != Status::Ok || !ready.line.startsWith("ready")) {
        // Its own word on why (an "err ..." line), else how it ended.
        *error =
            QStringLiteral("the sandbox did not start: %1")
                .arg(ready.status == Status::Error ? QString::fromUtf8(ready.line) : describeEnd());
        kill();
        return false;
    }
    m_isolation = QString::fromUtf8(ready.line.mid(6));
    return true;
}

bool SandboxProcess::running()
{
    if (m_pid < 0)
        return false;
    if (!hasEnded(m_pid))
        return true;
    reap(true);
    return false;
}

double SandboxProcess::cpuSecondsUsed() const
{
    if (m_pid < 0)
        return 0.0;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(m_pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0.0;
    // Fields after the command name (which may hold spaces): state is field 3, utime 14,
    // stime 15.
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return 0.0;
    const double ticks = double(::sysconf(_SC_CLK_TCK));
    return (fields[11].toDouble() + fields[12].toDouble()) / ticks;
}

SandboxProcess::Reply SandboxProcess::request(const QByteArray &line, int timeoutMs,
                                              const std::atomic<bool> *cancel)
{
    if (m_pid < 0)
        return {Status::Died, {}, {}};
    const QByteArray text = line + '\n';
    qint64 written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(m_requestFd, text.constData() + written,
                                  static_cast<size_t>(text.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            reap(false);
            return {Status::Died, {}, {}};
        }
        written += n;
    }
    return waitForReply(timeoutMs, cancel);
}

bool SandboxProcess::resizeBuffer(qint64 bytes, int timeoutMs)
{
    if (bytes <= m_bufferSize)
        return true;
    if (!mapBuffer(bytes))
        return false;
    return request("map", timeoutMs).status == Status::Ok;
}

SandboxProcess::Reply SandboxProcess::waitForReply(int timeoutMs, const std::atomic<bool> *cancel)
{
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        const qsizetype newline = m_pending.indexOf('\n');
        if (newline >= 0) {
            QByteArray line = m_pending.left(newline);
            m_pending.remove(0, newline + 1);
            if (line.startsWith("fatal ") || line.startsWith("resource ")) {
                // The sandbox is dying; keep reading until it is gone.
                if (m_fatalLine.isEmpty())
                    m_fatalLine = line;
                continue;
            }
            Reply reply;
            reply.line = line;
            QList<QByteArray> words = line.split(' ');
            const QByteArray head = words.isEmpty() ? QByteArray() : words.takeFirst();
            reply.words = words;
            reply.status = head == "err" ? Status::Error : Status::Ok;
            return reply;
        }
        const qint64 left = timeoutMs - timer.elapsed();
        if (left <= 0) {
            reap(true);
            return {Status::TimedOut, {}, {}};
        }
        if (cancel && cancel->load()) {
            reap(true);
            return {Status::Cancelled, {}, {}};
        }
        pollfd fds[2] = {{m_replyFd, POLLIN, 0}, {m_stderrFd, POLLIN, 0}};
        const int ready = ::poll(fds, m_stderrFd >= 0 ? 2 : 1, int(qMin<qint64>(left, 50)));
        if (ready < 0 && errno != EINTR) {
            reap(true);
            return {Status::Died, {}, {}};
        }
        if (fds[1].revents)
            drainStderr();
        if (m_stderrBytes > m_settings.outputCapBytes) {
            reap(true);
            return {Status::Flooded, {}, {}};
        }
        if (fds[0].revents) {
            char chunk[65536];
            const ssize_t n = ::read(m_replyFd, chunk, sizeof chunk);
            if (n > 0) {
                m_pending.append(chunk, n);
                // Replies are short lines; a candidate writing into the reply pipe is a flood.
                if (m_pending.size() > (1 << 20)) {
                    reap(true);
                    return {Status::Flooded, {}, {}};
                }
            } else if (n == 0 || errno != EINTR) {
                reap(false);
                return {Status::Died, {}, {}};
            }
        }
    }
}

void SandboxProcess::drainStderr()
{
    char chunk[65536];
    for (;;) {
        pollfd fd{m_stderrFd, POLLIN, 0};
        if (::poll(&fd, 1, 0) <= 0 || !(fd.revents & (POLLIN | POLLHUP)))
            return;
        const ssize_t n = ::read(m_stderrFd, chunk, sizeof chunk);
        if (n <= 0) {
            closeFd(m_stderrFd);
            return;
        }
        m_stderrBytes += n;
        m_stderrTail.append(chunk, n);
        if (m_stderrTail.size() > kStderrTailBytes)
            m_stderrTail = m_stderrTail.right(kStderrTailBytes);
        if (m_stderrBytes > m_settings.outputCapBytes)
            return;
    }
}

// Whether the process has ended, without reaping it (its pid stays reserved until reap()).
bool SandboxProcess::hasEnded(pid_t pid)
{
    siginfo_t info{};
    return ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
}

void SandboxProcess::reap(bool force)
{
    if (m_pid < 0)
        return;
    if (!force) {
        // It is ending by itself (exit, fatal signal): give it a moment to report its status.
        for (int i = 0; i < 40 && !hasEnded(m_pid); ++i)
            ::usleep(5000);
    }
    // Whatever the candidate started in the process group goes too. The sandbox is not reaped
    // yet, so the group id is still its own: once reaped, the id may be a new sandbox's.
    ::kill(-m_pid, SIGKILL);
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(m_pid, &status, 0)) < 0 && errno == EINTR) {
    }
    if (m_stderrFd >= 0 && m_stderrBytes <= m_settings.outputCapBytes)
        drainStderr();
    if (done == m_pid) {
        m_exited = WIFEXITED(status);
        m_exitCode = m_exited ? WEXITSTATUS(status) : -1;
        m_termSignal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    m_pid = -1;
    closeFd(m_requestFd);
    closeFd(m_replyFd);
    closeFd(m_stderrFd);
}

void SandboxProcess::kill()
{
    if (m_pid >= 0) {
        ::close(m_requestFd); // a polite end first would cost time; the sandbox holds no state
        m_requestFd = -1;
        reap(true);
    }
}

QString SandboxProcess::describeEnd() const
{
    QString text;
    if (m_termSignal)
        text = QStringLiteral("killed by signal %1 (%2)")
                   .arg(m_termSignal)
                   .arg(QString::fromLocal8Bit(::strsignal(m_termSignal)));
    else if (m_exited)
        text = QStringLiteral("exited with status %1").arg(m_exitCode);
    else
        text = QStringLiteral("stopped");
    const QString tail = QString::fromUtf8(m_stderrTail).trimmed();
    if (!tail.isEmpty())
        text += QStringLiteral("; stderr: ") +
                tail.right(300).replace(QLatin1Char('\n'), QLatin1String(" | "));
    return text;
}

QString SandboxProcess::stage(const QString &path) const
{
    const QFileInfo source(path);
    // Objects of the cache share a file name in folders named by their hash.
    const QString staged = m_workDir + QStringLiteral("/staged-") + source.dir().dirName() +
                           QLatin1Char('-') + source.fileName();
    if (QFileInfo::exists(staged) || QFile::copy(path, staged))
        return staged;
    return path;
}

} // namespace kiln
