#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>
#include <atomic>
#include <sys/types.h>

namespace kiln {

// How a kiln-sandbox process is started and limited.
struct SandboxSettings
{
    QString executable;
    int cpuSeconds = 60;
    qint64 addressSpaceMb = 2048;
    qint64 flushBytes = 8ll << 20;     // written before every timed call (well above L2)
    int threads = 0;                   // OMP_NUM_THREADS; 0 leaves the OpenMP default
    qint64 outputCapBytes = 4ll << 20; // candidate stdout + stderr before it is stopped
    QStringList extraArguments;        // appended to the command line (kiln-cuda-sandbox)
    // Benchmarks only: kiln-cuda-sandbox keeps the environment and skips namespaces, Landlock
    // and seccomp, so Nsight Compute can attach. Set by KILN_PROFILE_SANDBOX=1.
    bool profiling = false;
    // A candidate profiled by Nsight Compute (kiln-cli profile): the sandbox's command line is
    // appended to this one (kiln-cuda-sandbox --private-network -- ncu ...), which starts with
    // an environment of a few fixed variables (profiledEnvironment), none of the engine's.
    QStringList profilerCommand;
};

// One kiln-sandbox process driven over pipes, with its buffers in a shared memfd
// (sandbox/protocol.h). Every request has a wall-clock deadline: on expiry the whole process
// group is killed, so nothing the candidate started survives.
class SandboxProcess
{
public:
    enum class Status
    {
        Ok,
        Error,
        Died,
        TimedOut,
        Cancelled,
        Flooded
    };
    struct Reply
    {
        Status status = Status::Died;
        QList<QByteArray> words; // the reply line after "ok" / "err"
        QByteArray line;
    };

    explicit SandboxProcess(SandboxSettings settings);
    ~SandboxProcess();
    SandboxProcess(const SandboxProcess &) = delete;
    SandboxProcess &operator=(const SandboxProcess &) = delete;

    // cancel: the wait for the sandbox's "ready" ends (the process killed) once it is set.
    bool start(const QString &workDir, qint64 bufferBytes, int timeoutMs, QString *error,
               const std::atomic<bool> *cancel = nullptr);
    Reply request(const QByteArray &line, int timeoutMs, const std::atomic<bool> *cancel = nullptr);
    // Grows the shared buffer (contents kept) and has the sandbox remap it.
    bool resizeBuffer(qint64 bytes, int timeoutMs);
    void kill();
    // False once the process has ended (collected, with its status, as after a failed request).
    bool running();

    char *buffer() const { return m_buffer; }
    qint64 bufferSize() const { return m_bufferSize; }
    QString isolation() const { return m_isolation; }
    const SandboxSettings &settings() const { return m_settings; }
    // CPU time the process has used so far (user + system, every thread; /proc); 0 when not
    // running.
    double cpuSecondsUsed() const;
    QString workDir() const { return m_workDir; }
    // A copy of `path` in the work directory, the only folder of the engine's that a confined
    // sandbox may read (its compiled objects live in the compile cache); `path` itself when
    // the copy cannot be made, so the load reports why.
    QString stage(const QString &path) const;
    // The process's id while it runs (-1 when not), so GPU activity seen in NVML can be told
    // apart from our own.
    pid_t pid() const { return m_pid; }

    // How the process ended, once a request returned Died / TimedOut / Flooded.
    bool exited() const { return m_exited; }
    int exitCode() const { return m_exitCode; }
    int termSignal() const { return m_termSignal; }
    QByteArray fatalLine() const { return m_fatalLine; } // "fatal ..." or "resource ..."
    QByteArray stderrTail() const { return m_stderrTail; }
    qint64 stderrBytes() const { return m_stderrBytes; }
    QString describeEnd() const; // one line: exit status or signal, plus the stderr tail

private:
    Reply waitForReply(int timeoutMs, const std::atomic<bool> *cancel);
    void drainStderr();
    void reap(bool force);
    static bool hasEnded(pid_t pid);
    bool mapBuffer(qint64 bytes);
    bool createBuffer(qint64 bytes, QString *error); // the memfd, sealed and mapped
    QList<QByteArray> commandLine(const QString &workDir) const;
    int spawn(QList<QByteArray> args, int requestFd, int replyFd, int stderrFd,
              const QString &workDir);
    // What a profiler and the profiled sandbox under it start with: the search path, the work
    // folder as home and temporary folder, the user's choice of GPUs, the allocator tunable.
    static QList<QByteArray> profiledEnvironment(const QString &workDir);

    SandboxSettings m_settings;
    pid_t m_pid = -1;
    int m_requestFd = -1;
    int m_replyFd = -1;
    int m_stderrFd = -1;
    int m_bufferFd = -1;
    char *m_buffer = nullptr;
    qint64 m_bufferSize = 0;
    QByteArray m_pending;
    QByteArray m_stderrTail;
    qint64 m_stderrBytes = 0;
    QByteArray m_fatalLine;
    QString m_isolation;
    QString m_workDir;
    bool m_exited = false;
    int m_exitCode = -1;
    int m_termSignal = 0;
};

} // namespace kiln
