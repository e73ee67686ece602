#include "verifier/screen/native/forbiddencalls.h"

#include <QList>
#include <QMap>
#include <QSet>
#include <QStringList>

namespace kiln {

namespace {

struct CallRule
{
    const char *flag;
    QList<const char *> names;
};

const QList<CallRule> &callRules()
{
    static const QList<CallRule> rules = {
        {"dynamic_loading",
         {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dladdr1", "dlinfo", "dlopen_mode",
          "_dl_sym", "_dl_vsym", "_dl_find_object", "dl_iterate_phdr"}},
        {"memory_protection", {"mprotect", "pkey_mprotect"}},
        // Finding the harness's code and data from inside its process: its program headers and
        // link map, the caller's return address, a backtrace into it.
        {"process_inspection",
         {"ptrace", "process_vm_readv", "process_vm_writev", "getauxval", "backtrace",
          "_Unwind_Backtrace", "__builtin_return_address", "__builtin_frame_address",
          "__builtin_extract_return_addr"}},
        {"process_exit", {"exit", "_exit", "_Exit", "quick_exit", "abort", "terminate"}},
        {"signals",
         {"raise", "kill", "signal", "sigaction", "alarm", "setitimer", "pthread_kill", "tgkill",
          "sigqueue", "ualarm", "timer_create"}},
        {"process_spawn",
         {"fork", "vfork", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
          "system", "popen", "posix_spawn", "posix_spawnp", "clone", "clone3", "daemon"}},
        {"file_access",
         {"fopen",    "fopen64", "freopen",  "open",   "open64",  "openat",   "openat64", "creat",
          "creat64",  "unlink",  "unlinkat", "remove", "rename",  "renameat", "mkdir",    "rmdir",
          "truncate", "symlink", "link",     "chmod",  "mkstemp", "tmpfile"}},
        {"network",
         {"socket", "connect", "bind", "listen", "accept", "sendto", "recvfrom", "getaddrinfo",
          "gethostbyname"}},
        {"threads_detached", {"pthread_detach"}},
        // State that survives between calls without a static variable pointing at it.
        {"hidden_state",
         {"pthread_key_create", "pthread_setspecific", "pthread_getspecific", "setenv", "putenv",
          "unsetenv", "clearenv", "shm_open", "memfd_create", "shmget", "shmat"}},
        {"memory_mapping", {"mmap", "mmap64", "mremap", "munmap", "sbrk", "brk"}},
        // Raw descriptors and system calls reach the sandbox's own channels (its request and
        // reply pipes) and bypass every name screened above.
        {"raw_system_calls",
         {"syscall", "write",   "writev",      "pwrite", "pwrite64", "pwritev",  "read",   "readv",
          "pread",   "pread64", "preadv",      "splice", "vmsplice", "sendfile", "dup",    "dup2",
          "dup3",    "close",   "close_range", "fcntl",  "ioctl",    "prctl",    "seccomp"}},
    };
    return rules;
}

const QMap<QString, QString> &flagByName()
{
    static const QMap<QString, QString> map = [] {
        QMap<QString, QString> byName;
        for (const CallRule &rule : callRules()) {
            for (const char *name : rule.names)
                byName.insert(QString::fromLatin1(name), QString::fromLatin1(rule.flag));
        }
        return byName;
    }();
    return map;
}

// The C library's other names for one function: __mprotect, __libc_dlsym, __open64_2,
// __write_nocancel, __builtin__exit -> mprotect, dlsym, open64, write, _exit.
QString plainLibcName(QString name)
{
    if (name.startsWith(QLatin1String("__builtin_")))
        name = name.mid(10);
    while (name.startsWith(QLatin1Char('_')) && name.size() > 1)
        name.remove(0, 1);
    if (name.startsWith(QLatin1String("libc_")))
        name = name.mid(5);
    for (const char *suffix : {"_nocancel", "_chk", "_2", "_time64"}) {
        if (name.endsWith(QLatin1String(suffix)))
            name.chop(int(qstrlen(suffix)));
    }
    return name;
}

} // namespace

QString ForbiddenCalls::flagOf(const QString &name)
{
    const QString exact = flagByName().value(name);
    if (!exact.isEmpty() || name.isEmpty())
        return exact;
    const QString plain = plainLibcName(name);
    QString flag = flagByName().value(plain);
    if (flag.isEmpty() && plain.endsWith(QLatin1String("64")))
        flag = flagByName().value(plain.chopped(2));
    // A name of its own that merely starts with an underscore is not the C library's: only
    // the spellings above that differ from a listed name count.
    return plain == name ? QString() : flag;
}

bool ForbiddenCalls::isTimerFunction(const QString &name)
{
    static const QSet<QString> names = {
        QStringLiteral("clock_gettime"),
        QStringLiteral("__clock_gettime"),
        QStringLiteral("__clock_gettime64"),
        QStringLiteral("gettimeofday"),
        QStringLiteral("__gettimeofday"),
        QStringLiteral("clock"),
        QStringLiteral("time"),
        QStringLiteral("clock_getres"),
        QStringLiteral("timespec_get"),
        QStringLiteral("__vdso_clock_gettime"),
        QStringLiteral("__vdso_gettimeofday"),
        QStringLiteral("omp_get_wtime"),
        QStringLiteral("_ZNSt6chrono3_V212steady_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V212system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono12system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V214high_resolution_clock3nowEv")};
    return names.contains(name);
}

} // namespace kiln
