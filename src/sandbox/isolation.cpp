#include "isolation.h"

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace kiln::sandbox {

namespace {

// Landlock constants, spelled out because the distribution's kernel headers may predate the
// running kernel's ABI (the values are a stable kernel ABI).
constexpr std::uint64_t kLandlockExecute = 1ull << 0;
constexpr std::uint64_t kLandlockWriteFile = 1ull << 1;
constexpr std::uint64_t kLandlockReadFile = 1ull << 2;
constexpr std::uint64_t kLandlockReadDir = 1ull << 3;
constexpr std::uint64_t kLandlockRemoveDir = 1ull << 4;
constexpr std::uint64_t kLandlockRemoveFile = 1ull << 5;
constexpr std::uint64_t kLandlockMakeAll = 0x7full << 6; // char, dir, reg, sock, fifo, block, sym
constexpr std::uint64_t kLandlockRefer = 1ull << 13;
constexpr std::uint64_t kLandlockTruncate = 1ull << 14;
constexpr std::uint64_t kLandlockNetBindTcp = 1ull << 0;
constexpr std::uint64_t kLandlockNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kLandlockScopeAbstractUnix = 1ull << 0;
constexpr std::uint64_t kLandlockScopeSignal = 1ull << 1;
constexpr unsigned kLandlockRulePathBeneath = 1;
constexpr unsigned kLandlockCreateRulesetVersion = 1u << 0;

struct RulesetAttr
{
    std::uint64_t handledAccessFs;
    std::uint64_t handledAccessNet;
    std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr
{
    std::uint64_t allowedAccess;
    std::int32_t parentFd;
};

bool writeFile(const char *path, const std::string &text)
{
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
}

bool enterUserAndNetworkNamespaces()
{
    const uid_t uid = ::getuid();
    const gid_t gid = ::getgid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
        return false;
    // Map our own ids so files in the work directory can still be created.
    writeFile("/proc/self/setgroups", "deny");
    writeFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
    writeFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
    return true;
}

void enterNamespaces(IsolationReport &report)
{
    if (enterUserAndNetworkNamespaces()) {
        report.userNamespace = true;
        report.networkNamespace = true;
        return;
    }
    // Without user namespaces a privileged sandbox may still get a network namespace.
    if (::unshare(CLONE_NEWNET) == 0)
        report.networkNamespace = true;
}

struct Ruleset
{
    int fd = -1;
    long abi = 0;
    std::uint64_t writes = 0;
    std::uint64_t reads = 0; // 0: reads are not confined

    // Rights that only directories have make the kernel refuse a rule for a file (a device).
    std::uint64_t forFile(std::uint64_t access) const
    {
        return access & (kLandlockExecute | kLandlockWriteFile | kLandlockReadFile |
                         (abi >= 3 ? kLandlockTruncate : 0));
    }
    void allow(const std::string &path, std::uint64_t access) const
    {
        struct stat info
        {
        };
        if (::stat(path.c_str(), &info) != 0)
            return;
        const int target = ::open(path.c_str(), O_PATH | O_CLOEXEC);
        if (target < 0)
            return;
        PathBeneathAttr rule{S_ISDIR(info.st_mode) ? access : forFile(access), target};
        ::syscall(SYS_landlock_add_rule, fd, kLandlockRulePathBeneath, &rule, 0);
        ::close(target);
    }
};

} // namespace

long landlockAbi()
{
    const long abi =
        ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kLandlockCreateRulesetVersion);
    return abi > 0 ? abi : 0;
}

namespace {

Ruleset createRuleset(bool confineReads, bool confineNetwork = true)
{
    Ruleset ruleset;
    ruleset.abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kLandlockCreateRulesetVersion);
    if (ruleset.abi <= 0)
        return ruleset;
    const long abi = ruleset.abi;
    ruleset.writes = kLandlockWriteFile | kLandlockRemoveDir | kLandlockRemoveFile |
                     kLandlockMakeAll | (abi >= 2 ? kLandlockRefer : 0) |
                     (abi >= 3 ? kLandlockTruncate : 0);
    if (confineReads)
        ruleset.reads = kLandlockExecute | kLandlockReadFile | kLandlockReadDir;
    RulesetAttr attr{ruleset.writes | ruleset.reads, 0, 0};
    std::size_t attrSize = sizeof(std::uint64_t);
    if (abi >= 4 && confineNetwork) {
        // No TCP bind/connect at all: the fallback when no network namespace is available.
        attr.handledAccessNet = kLandlockNetBindTcp | kLandlockNetConnectTcp;
        attrSize = 2 * sizeof(std::uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = kLandlockScopeAbstractUnix | kLandlockScopeSignal;
        attrSize = sizeof(RulesetAttr);
    }
    ruleset.fd = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attrSize, 0));
    return ruleset;
}

// Writes confined to workDir and alsoWritable; with readable given, reads (and exec) to those
// paths as well: another process's /proc folder, the user's files and the workspace database
// then answer EACCES.
void confineFilesystem(const std::string &workDir, const std::vector<std::string> &alsoWritable,
                       const std::vector<std::string> &readable, IsolationReport &report,
                       bool confineNetwork = true)
{
    const Ruleset ruleset = createRuleset(!readable.empty(), confineNetwork);
    if (ruleset.fd < 0)
        return;
    ruleset.allow(workDir, ruleset.writes | ruleset.reads);
    for (const std::string &path : alsoWritable)
        ruleset.allow(path, ruleset.writes | ruleset.reads);
    for (const std::string &path : readable)
        ruleset.allow(path, ruleset.reads);
    ruleset.allow("/dev/null", ruleset.forFile(ruleset.writes | ruleset.reads));
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (::syscall(SYS_landlock_restrict_self, ruleset.fd, 0) == 0) {
        report.landlockAbi = static_cast<int>(ruleset.abi);
        report.readsConfined = ruleset.reads != 0;
    }
    ::close(ruleset.fd);
}

void setLimit(int resource, rlim_t value)
{
    rlimit limit{value, value};
    ::setrlimit(resource, &limit);
}

// No new executable memory: no mprotect or pkey_mprotect that adds PROT_EXEC (patching the
// harness's code means making it writable, then executable again) and no anonymous executable
// mapping. dlopen maps a library from its file, which stays allowed. The accumulator holds the
// system call number on entry and is reloaded before leaving.
void appendNoNewCode(std::vector<sock_filter> &program)
{
    const auto nrOffset = static_cast<std::uint32_t>(offsetof(seccomp_data, nr));
    const auto prot = static_cast<std::uint32_t>(offsetof(seccomp_data, args[2]));
    const auto fd = static_cast<std::uint32_t>(offsetof(seccomp_data, args[4]));
    constexpr std::uint32_t denied = SECCOMP_RET_ERRNO | EPERM;
    for (long nr : {long(SYS_mprotect), long(SYS_pkey_mprotect)}) {
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(nr), 0, 4));
        program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, prot));
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1));
        program.push_back(BPF_STMT(BPF_RET | BPF_K, denied));
        program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nrOffset));
    }
    // mmap(PROT_EXEC) with fd -1 (its low word all ones).
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(SYS_mmap), 0, 6));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, prot));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 3));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, fd));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, denied));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, nrOffset));
    // Code written to a file the candidate made and mapped from there: no anonymous files.
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(SYS_memfd_create), 0, 1));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, denied));
}

// System calls a candidate never needs: new processes and programs, other processes' memory,
// sockets, namespaces, mounts, kernel programs, keys, signals to threads by id, seccomp filters.
void appendForbidden(std::vector<sock_filter> &program)
{
    constexpr std::uint32_t denied = SECCOMP_RET_ERRNO | EPERM;
    const long forbidden[] = {
#if defined(__x86_64__)
        SYS_fork,
        SYS_vfork,
#endif
        SYS_execve,
        SYS_execveat,
        SYS_ptrace,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_socket,
        SYS_socketpair,
        SYS_unshare,
        SYS_setns,
        SYS_mount,
        SYS_umount2,
        SYS_pivot_root,
        SYS_chroot,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_keyctl,
        SYS_add_key,
        SYS_request_key,
        SYS_tkill,
        SYS_rt_sigqueueinfo,
        SYS_rt_tgsigqueueinfo,
        SYS_pidfd_open,
        SYS_pidfd_send_signal,
        SYS_pidfd_getfd,
        SYS_process_madvise,
        SYS_kcmp,
        SYS_seccomp
    };
    for (long nr : forbidden) {
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, std::uint32_t(nr), 0, 1));
        program.push_back(BPF_STMT(BPF_RET | BPF_K, denied));
    }
}

// Loopback up in the namespace just entered (a new one has it down): SIOCSIFFLAGS on "lo".
bool bringLoopbackUp(std::string &error)
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool ok = fd >= 0 && ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    if (ok) {
        request.ifr_flags |= IFF_UP | IFF_RUNNING;
        ok = ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    }
    if (!ok)
        error = std::string("loopback not brought up: ") + std::strerror(errno);
    if (fd >= 0)
        ::close(fd);
    return ok;
}

} // namespace

bool enterPrivateNetwork(std::string &error)
{
    // Always inside a user namespace: even where Kiln runs as root, the profiled candidate then
    // holds no capability of the host's (no devices, modules or mounts).
    if (!enterUserAndNetworkNamespaces()) {
        error = std::string("no user and network namespace: ") + std::strerror(errno);
        return false;
    }
    return bringLoopbackUp(error);
}

void dropCapabilities()
{
    if (::geteuid() != 0)
        return;
    for (int capability = 0; capability <= CAP_LAST_CAP; ++capability)
        ::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    ::syscall(SYS_capset, &header, data);
}

bool onlyLoopback()
{
    struct if_nameindex *interfaces = ::if_nameindex();
    if (!interfaces)
        return false;
    bool only = true;
    for (const struct if_nameindex *i = interfaces; i->if_index != 0; ++i)
        only = only && std::strcmp(i->if_name, "lo") == 0;
    ::if_freenameindex(interfaces);
    return only;
}

bool inUserNamespace()
{
    // The initial namespace maps every id: "0 0 4294967295".
    std::FILE *map = std::fopen("/proc/self/uid_map", "r");
    if (!map)
        return false;
    unsigned long inside = 0, outside = 0, count = 0;
    const bool read = std::fscanf(map, "%lu %lu %lu", &inside, &outside, &count) == 3;
    std::fclose(map);
    // The one id --private-network maps; a wider map (a container's) is not ours.
    return read && count == 1;
}

std::string IsolationReport::describe() const
{
    return "userns=" + std::to_string(userNamespace ? 1 : 0) +
           " netns=" + std::to_string(networkNamespace ? 1 : 0) +
           " landlock=" + std::to_string(landlockAbi) + " reads=" + (readsConfined ? "1" : "0");
}

std::vector<std::string> systemReadablePaths(bool gpu)
{
    std::vector<std::string> paths{
        // The toolchain and the system's libraries.
        "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt",
        // What the loader, the C library and the compilers read of /etc.
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/dev/zero",
        "/dev/urandom", "/dev/random",
        // Of /proc, this process's own folder and the machine's description: never another
        // process's folder (its command line, its descriptors).
        "/proc/" + std::to_string(::getpid()), "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
        "/proc/filesystems", "/proc/sys", "/proc/version", "/sys/devices/system/cpu"};
    if (gpu) {
        for (const char *path :
             {"/sys", "/proc/driver/nvidia", "/proc/devices", "/proc/modules", "/dev/shm",
              "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
              "/dev/nvidia-caps"})
            paths.emplace_back(path);
        for (int i = 0; i < 64; ++i)
            paths.push_back("/dev/nvidia" + std::to_string(i));
    }
    return paths;
}

void isolateProcess(const std::string &workDir, const Limits &limits, IsolationReport &report)
{
    enterNamespaces(report);
    confineAndLimit(workDir, limits, report, true, {}, systemReadablePaths(false));
}

void isolateNamespaces(IsolationReport &report)
{
    enterNamespaces(report);
}

void confineAndLimit(const std::string &workDir, const Limits &limits, IsolationReport &report,
                     bool confineWrites, const std::vector<std::string> &alsoWritable,
                     const std::vector<std::string> &readable, bool confineNetwork)
{
    if (confineWrites)
        confineFilesystem(workDir, alsoWritable, readable, report, confineNetwork);
    setLimit(RLIMIT_CORE, 0);
    setLimit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpuSeconds));
    if (limits.addressSpaceBytes > 0)
        setLimit(RLIMIT_AS, static_cast<rlim_t>(limits.addressSpaceBytes));
    setLimit(RLIMIT_NOFILE, static_cast<rlim_t>(limits.openFiles));
    setLimit(RLIMIT_FSIZE, static_cast<rlim_t>(limits.fileSizeBytes));
    // Counts every task of the user, threads included, so it can only be a loose bound; the
    // seccomp filter is what forbids new processes.
    setLimit(RLIMIT_NPROC, 4096);
    // A write beyond RLIMIT_FSIZE then fails with EFBIG instead of killing the sandbox.
    ::signal(SIGXFSZ, SIG_IGN);
}

void confineAgent(const std::string &workDir, const std::vector<std::string> &writable,
                  const std::vector<std::string> &readable, IsolationReport &report)
{
    confineFilesystem(workDir, writable, readable, report, false);
    setLimit(RLIMIT_CORE, 0);
    setLimit(RLIMIT_FSIZE, 1ull << 30);
    ::signal(SIGXFSZ, SIG_IGN);
}

// The architecture a seccomp filter checks first (its system call numbers are this one's); 0
// where Kiln has no filter.
#if defined(__x86_64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr std::uint32_t kAuditArch = 0;
#endif

bool forbidUnixSockets()
{
    constexpr std::uint32_t arch = kAuditArch;
    if (arch == 0)
        return false;
    const auto arg0 = static_cast<std::uint32_t>(offsetof(seccomp_data, args[0]));
    std::vector<sock_filter> program{
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
    ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0;
}

bool forbidProcessesAndNetwork(bool forbidNewCode, bool allowInetSockets)
{
    constexpr std::uint32_t arch = kAuditArch;
    if (arch == 0)
        return false;
    const std::uint32_t self = static_cast<std::uint32_t>(::getpid());
    constexpr std::uint32_t denied = SECCOMP_RET_ERRNO | EPERM;
    constexpr std::uint32_t allowed = SECCOMP_RET_ALLOW;
    const auto nrOffset = offsetof(seccomp_data, nr);
    const auto arg0 = offsetof(seccomp_data, args[0]); // low word on little-endian targets
    std::vector<sock_filter> program;
    auto stmt = [&](std::uint16_t code, std::uint32_t k) { program.push_back(BPF_STMT(code, k)); };
    auto jump = [&](std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
        program.push_back(BPF_JUMP(code, k, jt, jf));
    };
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    jump(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(nrOffset));
#if defined(__x86_64__)
    // x32 system calls would bypass the numbers below.
    jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    stmt(BPF_RET | BPF_K, denied);
#endif
    // clone: only threads (CLONE_THREAD) may be created.
    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(arg0));
    jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    stmt(BPF_RET | BPF_K, allowed);
    stmt(BPF_RET | BPF_K, denied);
    // clone3 hides its flags behind a pointer: ENOSYS makes glibc fall back to clone.
    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    // kill / tgkill: only this process may be signalled (raise() is allowed, and caught).
    for (long nr : {long(SYS_kill), long(SYS_tgkill)}) {
        jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(nr), 0, 4);
        stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(arg0));
        jump(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1);
        stmt(BPF_RET | BPF_K, allowed);
        stmt(BPF_RET | BPF_K, denied);
    }
    // prctl(PR_SET_SECCOMP): a filter of the candidate's own could trap the harness's clock.
    jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(arg0));
    jump(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1);
    stmt(BPF_RET | BPF_K, denied);
    stmt(BPF_RET | BPF_K, allowed);
    if (forbidNewCode)
        appendNoNewCode(program);
    if (allowInetSockets) {
        // Only in a network namespace of the profiler's and ours (enterPrivateNetwork), and
        // no raw sockets, which could read or forge the profiler's traffic.
        const auto arg1 = offsetof(seccomp_data, args[1]);
        jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 8);
        stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(arg0));
        jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0);
        jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 3);
        stmt(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(arg1));
        stmt(BPF_ALU | BPF_AND | BPF_K, 0xf); // the type, without SOCK_CLOEXEC / SOCK_NONBLOCK
        jump(BPF_JMP | BPF_JEQ | BPF_K, SOCK_RAW, 0, 1);
        stmt(BPF_RET | BPF_K, denied);
        stmt(BPF_RET | BPF_K, allowed);
    }
    appendForbidden(program);
    stmt(BPF_RET | BPF_K, allowed);

    sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return false;
    return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog) == 0;
}

} // namespace kiln::sandbox
