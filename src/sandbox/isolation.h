#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::sandbox {

// Limits the engine asks for (command-line options of kiln-sandbox).
struct Limits
{
    int cpuSeconds = 60;
    std::uint64_t addressSpaceBytes = 2ull << 30; // 0: no limit (the CUDA driver maps huge ranges)
    int openFiles = 64;
    std::uint64_t fileSizeBytes = 64ull << 20;
};

// What the OS allowed; reported to the engine in the "ready" line.
struct IsolationReport
{
    bool userNamespace = false;
    bool networkNamespace = false;
    int landlockAbi = 0;        // 0: not available; writes outside the work directory then allowed
    bool readsConfined = false; // reads limited to the work directory and systemReadablePaths
    bool seccomp = false;
    std::string describe() const;
};

// Everything before the compiler runs: private namespaces, filesystem confinement (Landlock:
// writes to workDir, reads to workDir and systemReadablePaths), resource limits. Failures that
// leave the sandbox usable are reported, not fatal: the engine records what was missing.
void isolateProcess(const std::string &workDir, const Limits &limits, IsolationReport &report);
// The same in two steps, for the CUDA sandbox: namespaces must be entered while the process
// has one thread, the driver must open its device files before Landlock confines writes.
void isolateNamespaces(IsolationReport &report);
// confineWrites false: the limits only (the GPU checker, which runs no candidate code and needs
// the driver's device files for CUDA IPC after start-up). alsoWritable: further folders or
// files writes may reach (the PyTorch sandbox's extension cache and the GPU's device files).
// readable: where reads (and exec) may reach besides workDir and alsoWritable; empty leaves
// reads unconfined.
// confineNetwork false: Landlock leaves TCP alone (a profiled sandbox, whose private network
// namespace holds only its profiler).
void confineAndLimit(const std::string &workDir, const Limits &limits, IsolationReport &report,
                     bool confineWrites = true, const std::vector<std::string> &alsoWritable = {},
                     const std::vector<std::string> &readable = {}, bool confineNetwork = true);
// A coding agent's confinement (kiln-agent-sandbox): writes to workDir and writable, reads and
// exec to those and readable, the network left open (the agent calls its model's API); no
// resource limits but core files and a 1 GiB file size, since the engine bounds its time.
void confineAgent(const std::string &workDir, const std::vector<std::string> &writable,
                  const std::vector<std::string> &readable, IsolationReport &report);
// No new Unix-domain socket (socket(AF_UNIX) fails with EACCES; socketpair stays): Landlock does
// not govern connecting to a named socket, and the user's D-Bus, ssh agent or container daemon
// would run code outside the sandbox. False where the filter could not be installed.
bool forbidUnixSockets();
// The running kernel's Landlock ABI version; 0 where Landlock is not available.
long landlockAbi();

// What a sandbox must read besides its work directory: the toolchain, the system's libraries,
// a few files of /etc, this process's own /proc folder; gpu: also the driver's files.
std::vector<std::string> systemReadablePaths(bool gpu);

// After compilation, before any candidate code is loaded: forbids new processes, exec, sockets,
// ptrace, signals to other processes and seccomp filters of the candidate's own (seccomp).
// Threads stay allowed (OpenMP, std::thread). forbidNewCode: no executable memory made at run
// time either (the CPU sandbox; the CUDA driver's and Python's needs are not known to allow it).
// allowInetSockets: new TCP/UDP sockets stay allowed (a profiled sandbox, which shares a
// network namespace with only loopback, its profiler's, from enterPrivateNetwork).
bool forbidProcessesAndNetwork(bool forbidNewCode = false, bool allowInetSockets = false);
// A user and a network namespace of its own with only loopback up, entered before a profiler
// starts the sandbox it profiles: the two reach each other over 127.0.0.1 and nothing else, and
// hold no capability of the host's. False, with the reason, where no namespace could be made or
// loopback stays down.
bool enterPrivateNetwork(std::string &error);
// What a profiled sandbox checks before it allows itself sockets: its network has no interface
// but loopback, and it runs in a user namespace (not the initial one).
bool onlyLoopback();
// Every capability goes, for later execs too (a process that runs as root, or as root of a user
// namespace: with CAP_SYS_PTRACE or CAP_DAC_OVERRIDE, Landlock alone would bound it less).
void dropCapabilities();
bool inUserNamespace();

} // namespace kiln::sandbox
