// kiln-sandbox: compiles, loads and runs one untrusted candidate for the engine (protocol.h).
// Qt-free and deliberately small: it returns raw times and leaves outputs in shared memory;
// every conclusion is drawn by the engine, outside this address space.

#include "channel.h"
#include "harnessclock.h"
#include "isolation.h"
#include "protocol.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <new>
#include <sched.h>
#include <spawn.h>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace kiln::sandbox {
namespace {

using EntryShim = void (*)(void *const *, const long long *, const double *);

extern "C" void kilnEmptyCall(void *const *, const long long *, const double *) {}

// The stack the next call's frames will use, below the caller's, filled with the poison byte.
__attribute__((noinline)) void poisonStack(unsigned char fill)
{
    constexpr std::size_t kBytes = 256u << 10;
    auto *area = static_cast<unsigned char *>(__builtin_alloca(kBytes));
    std::memset(area, fill, kBytes);
    asm volatile("" : : "r"(area) : "memory"); // the fill is not a dead store
}

class Sandbox
{
public:
    explicit Sandbox(std::uint64_t flushBytes) : m_flushBytes(flushBytes) {}

    void serve()
    {
        serveRequests([this](const std::vector<std::string> &words) {
            const std::string &command = words[0];
            if (command == "compile")
                compile(words);
            else if (command == "lock")
                reply(lock() ? "ok" : "err seccomp unavailable");
            else if (command == "load")
                load(words);
            else if (command == "map")
                map();
            else if (command == "args")
                storeArguments(words, m_size, m_arguments);
            else if (command == "batch")
                batch(words);
            else if (command == "probe")
                probe(words);
            else
                return false;
            return true;
        });
    }

private:
    bool lock()
    {
        if (!m_locked)
            m_locked = forbidProcessesAndNetwork(true);
        m_lockAttempted = true;
        return m_locked;
    }

    void compile(const std::vector<std::string> &words)
    {
        if (m_lockAttempted || words.size() < 2) {
            reply("err compile after load or without a command");
            return;
        }
        std::vector<char *> argv;
        for (std::size_t i = 1; i < words.size(); ++i)
            argv.push_back(const_cast<char *>(words[i].c_str()));
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, "compile.log", O_WRONLY | O_CREAT | O_TRUNC,
                                         0600);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        const auto start = std::chrono::steady_clock::now();
        pid_t pid = 0;
        const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) {
            reply("err cannot start compiler: " + std::string(std::strerror(rc)));
            return;
        }
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        reply("ok " + std::to_string(code) + " " + std::to_string(ms));
    }

    void load(const std::vector<std::string> &words)
    {
        if (words.size() < 4 || (words[1] != "c" && words[1] != "r")) {
            reply("err usage: load c|r SYMBOL PATH");
            return;
        }
        // Candidate code never runs before the process is locked down.
        lock();
        void *handle = ::dlopen(words[3].c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *error = ::dlerror();
            std::string text = error ? error : "dlopen failed";
            for (char &c : text) {
                if (c == '\n')
                    c = ' ';
            }
            reply("err " + text);
            return;
        }
        void *symbol = ::dlsym(handle, words[2].c_str());
        if (!symbol) {
            reply("err missing symbol " + words[2]);
            return;
        }
        (words[1] == "c" ? m_candidate : m_reference) = reinterpret_cast<EntryShim>(symbol);
        reply("ok");
    }

public:
    // Maps the shared buffer; quiet at startup, answering when the engine asks.
    void map(bool answer = true)
    {
        const bool mapped = mapSharedBuffer(m_bufferFd, m_base, m_size);
        if (answer)
            reply(mapped ? "ok " + std::to_string(m_size) : std::string("err no buffer"));
    }

private:
    bool inside(std::uint64_t offset, std::uint64_t bytes) const
    {
        return offset <= m_size && bytes <= m_size - offset;
    }

    void flushCaches()
    {
        if (m_flush.size() != m_flushBytes)
            m_flush.assign(m_flushBytes, 0);
        ++m_flushRound;
        std::memset(m_flush.data(), static_cast<int>(m_flushRound & 0xff), m_flush.size());
        // A read keeps the stores from being elided.
        volatile unsigned char sink = m_flush[m_flush.size() / 2];
        (void)sink;
    }

    // Writes back and drops every cache line of a region, from every core's caches: the engine
    // wrote the call's inputs and sentinels on its own core, and a flush buffer written here
    // does not reach another core's private cache. Without this the same kernel read 0.54x to
    // 0.99x against itself, by whether the engine's core held its inputs.
    static void evictLines(const char *start, std::uint64_t bytes)
    {
#if defined(__x86_64__)
        constexpr std::uint64_t kLine = 64;
        const auto first = reinterpret_cast<std::uintptr_t>(start) & ~(kLine - 1);
        const auto end = reinterpret_cast<std::uintptr_t>(start) + bytes;
        for (std::uintptr_t line = first; line < end; line += kLine)
            __builtin_ia32_clflush(reinterpret_cast<const void *>(line));
        __builtin_ia32_mfence();
#else
        (void)start;
        (void)bytes;
#endif
    }

    void batch(const std::vector<std::string> &words)
    {
        std::string times;
        for (std::size_t w = 1; w < words.size(); ++w) {
            const std::vector<std::string> op = splitFields(words[w]);
            std::string error;
            if (memoryOp(op, error)) {
                if (!error.empty()) {
                    reply("err " + error);
                    return;
                }
            } else if (op[0] == "cpu") {
                // CPU time of the whole process (every thread) so far: what threads used while
                // the sandbox waited for requests shows in the gaps.
                timespec now{};
                ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
                times += ' ';
                times += std::to_string(std::int64_t(now.tv_sec) * 1000000000 + now.tv_nsec);
            } else if (op[0] == "where") {
                // The CPU this thread is on: the engine times the baseline on the same one, so
                // both sides of a pair see the same core (cores of a virtual machine differ).
                times += ' ';
                times += std::to_string(::sched_getcpu());
            } else if (op[0] == "pin" && op.size() == 2) {
                times += ' ' + pin(std::atoi(op[1].c_str()));
            } else if (op[0] == "flush") {
                flushCaches();
            } else if (op[0] == "poison" && op.size() == 2) {
                const int fill = std::atoi(op[1].c_str()) & 0xff;
                ::mallopt(M_PERTURB, fill ^ 0xff);
                poisonStack(static_cast<unsigned char>(fill));
            } else if (op[0] == "nop") {
                times += ' ';
                times += std::to_string(timedCall(kilnEmptyCall, nullptr));
            } else if (op[0] == "call" && op.size() == 3) {
                const EntryShim entry = op[1] == "r" ? m_reference : m_candidate;
                const std::size_t id = std::strtoull(op[2].c_str(), nullptr, 10);
                if (!entry || id >= m_arguments.size()) {
                    reply("err call before load or with unknown arguments");
                    return;
                }
                times += ' ';
                times += std::to_string(timedCall(entry, &m_arguments[id]));
            } else {
                reply("err bad batch op " + words[w]);
                return;
            }
        }
        reply("ok " + std::to_string(countThreads()) + times);
    }

    // The ops on the shared buffer (cp, fill, snap, evict): true when `op` is one, with `error`
    // set when its range leaves the buffer.
    bool memoryOp(const std::vector<std::string> &op, std::string &error)
    {
        auto field = [&](std::size_t k) { return std::strtoull(op[k].c_str(), nullptr, 10); };
        if ((op[0] == "cp" || op[0] == "snap") && op.size() == 4) {
            // snap, right after a call: the outputs as they were when it returned.
            const std::uint64_t src = field(1), dst = field(2), bytes = field(3);
            if (!inside(src, bytes) || !inside(dst, bytes))
                error = op[0] + " outside the buffer";
            else
                std::memmove(m_base + dst, m_base + src, bytes);
        } else if (op[0] == "fill" && op.size() == 3) {
            const std::uint64_t offset = field(1), bytes = field(2) & ~3ull;
            auto *words32 = reinterpret_cast<std::uint32_t *>(m_base + offset);
            if (!inside(offset, bytes))
                error = "fill outside the buffer";
            else
                std::fill(words32, words32 + bytes / 4, kSentinelWord);
        } else if (op[0] == "evict" && op.size() == 3) {
            const std::uint64_t offset = field(1), bytes = field(2);
            if (!inside(offset, bytes))
                error = "evict outside the buffer";
            else
                evictLines(m_base + offset, bytes);
        } else {
            return false;
        }
        return true;
    }

    // This thread onto one CPU (the baseline's process only: the reference is single-threaded,
    // and the candidate's threads keep every core); the CPU, or -1.
    static std::string pin(int target)
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (target >= 0 && target < CPU_SETSIZE)
            CPU_SET(target, &set);
        if (target < 0 || ::sched_setaffinity(0, sizeof set, &set) != 0)
            return "-1";
        return std::to_string(target);
    }

    long long timedCall(EntryShim entry, const ArgumentSet *set)
    {
        void *pointers[16] = {};
        const long long *ints = nullptr;
        const double *reals = nullptr;
        if (set) {
            for (std::size_t i = 0; i < set->offsets.size() && i < 16; ++i)
                pointers[i] = m_base + set->offsets[i];
            ints = set->ints.data();
            reals = set->reals.data();
        }
        std::atomic_signal_fence(std::memory_order_seq_cst);
        const std::int64_t start = harnessNowNs();
        entry(pointers, ints, reals);
        const std::int64_t stop = harnessNowNs();
        std::atomic_signal_fence(std::memory_order_seq_cst);
        return stop - start;
    }

    void probe(const std::vector<std::string> &words)
    {
        reply(probeOtherThreads(words));
    }

public:
    int m_bufferFd = -1;

private:
    std::uint64_t m_flushBytes;
    std::vector<unsigned char> m_flush;
    unsigned m_flushRound = 0;
    char *m_base = nullptr;
    std::uint64_t m_size = 0;
    std::vector<ArgumentSet> m_arguments;
    EntryShim m_candidate = nullptr;
    EntryShim m_reference = nullptr;
    bool m_locked = false;
    bool m_lockAttempted = false;
};

} // namespace
} // namespace kiln::sandbox

int main(int argc, char **argv)
{
    using namespace kiln::sandbox;
    // Die with the engine: a sandbox must never outlive the process that judges it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const char *workDir = textOption(argc, argv, "--workdir");
    if (!workDir || ::chdir(workDir) != 0) {
        std::fprintf(stderr, "kiln-sandbox: --workdir DIR is required and must exist\n");
        return kExitSetupFailed;
    }

    const int bufferFd = takeProtocolDescriptors();
    if (bufferFd == -1) {
        std::fprintf(stderr, "kiln-sandbox: protocol descriptors missing\n");
        return kExitSetupFailed;
    }
    Limits limits;
    limits.cpuSeconds = static_cast<int>(numberOption(argc, argv, "--cpu-seconds", 60));
    limits.addressSpaceBytes =
        numberOption(argc, argv, "--address-space-mb", 2048) * (std::uint64_t(1) << 20);
    const std::uint64_t flushBytes = numberOption(argc, argv, "--flush-bytes", 16u << 20);
    const char *threads = textOption(argc, argv, "--threads");

    // Scrubbed environment: nothing of the engine's leaks to the compiler or the candidate.
    ::clearenv();
    ::setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
    ::setenv("LANG", "C", 1);
    ::setenv("HOME", workDir, 1);
    ::setenv("TMPDIR", workDir, 1);
    // Idle OpenMP workers spin very briefly, then sleep: hand-offs inside a call stay fast,
    // threads busy well after a call returned stand out, and spinning workers do not take the
    // cores of the other evaluations (at 20,000 spins an OpenMP layernorm ran at half speed
    // beside a second evaluation on two cores). OMP_WAIT_POLICY=PASSIVE would slow every
    // OpenMP candidate down.
    ::setenv("GOMP_SPINCOUNT", "2000", 1);
    if (threads)
        ::setenv("OMP_NUM_THREADS", threads, 1);
    ::umask(077);

    IsolationReport report;
    isolateProcess(workDir, limits, report);
    installCrashReporting();

    Sandbox sandbox(flushBytes);
    sandbox.m_bufferFd = bufferFd;
    sandbox.map(false);
    reply("ready " + report.describe());
    sandbox.serve();
    return 0;
}
