// Shared by both sandbox executables: the request/reply channel of protocol.h, crash
// reporting, and small process probes. Qt-free, like the sandboxes.

#include "channel.h"

#include "protocol.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <new>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace kiln::sandbox {

namespace {

// Private descriptors, moved out of the candidate's easy reach (0, 1 and 2 are reassigned).
int g_requestFd = -1;
int g_replyFd = -1;
std::atomic<bool> g_fatalReported{false};

} // namespace

void writeAll(int fd, const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

void reply(const std::string &line)
{
    const std::string text = line + "\n";
    writeAll(g_replyFd, text.data(), text.size());
}

namespace {

// Async-signal-safe decimal formatting for the fatal-signal report.
char *appendNumber(char *out, unsigned long long value)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value);
    while (n)
        *out++ = digits[--n];
    return out;
}

void onFatalSignal(int signal, siginfo_t *info, void *)
{
    const int savedErrno = errno; // ENOMEM here means an allocation just failed
    if (!g_fatalReported.exchange(true)) {
        char line[96];
        char *p = line;
        std::memcpy(p, "fatal ", 6);
        p = appendNumber(p + 6, static_cast<unsigned>(signal));
        *p++ = ' ';
        p = appendNumber(p, static_cast<unsigned>(savedErrno));
        *p++ = ' ';
        p = appendNumber(p, reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr));
        *p++ = '\n';
        writeAll(g_replyFd, line, static_cast<std::size_t>(p - line));
    }
    // SA_RESETHAND restored the default action: returning re-raises a fault, and abort()
    // raises again by itself.
}

void onAllocationFailure()
{
    static const char text[] = "resource alloc\n";
    writeAll(g_replyFd, text, sizeof text - 1);
    ::_exit(kExitResource);
}

} // namespace

void installCrashReporting()
{
    static std::vector<char> altStack(1 << 16);
    stack_t stack{};
    stack.ss_sp = altStack.data();
    stack.ss_size = altStack.size();
    ::sigaltstack(&stack, nullptr);
    struct sigaction action
    {
    };
    action.sa_sigaction = onFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS, SIGXCPU})
        ::sigaction(signal, &action, nullptr);
    std::set_new_handler(onAllocationFailure);
}

std::vector<std::string> splitWords(const std::string &line)
{
    std::vector<std::string> words;
    std::size_t start = 0;
    while (start < line.size()) {
        std::size_t end = line.find(' ', start);
        if (end == std::string::npos)
            end = line.size();
        if (end > start)
            words.push_back(line.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

std::vector<std::string> splitFields(const std::string &word)
{
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = word.find(':', start);
        fields.push_back(word.substr(start, end == std::string::npos ? end : end - start));
        if (end == std::string::npos)
            return fields;
        start = end + 1;
    }
}

// Reads one request line; false on end of input.
bool readLine(std::string &line)
{
    static std::string pending;
    for (;;) {
        const std::size_t newline = pending.find('\n');
        if (newline != std::string::npos) {
            line = pending.substr(0, newline);
            pending.erase(0, newline + 1);
            return true;
        }
        char chunk[65536];
        const ssize_t n = ::read(g_requestFd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        pending.append(chunk, static_cast<std::size_t>(n));
    }
}

int countThreads()
{
    DIR *dir = ::opendir("/proc/self/task");
    if (!dir)
        return -1;
    int count = 0;
    while (const dirent *entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.')
            ++count;
    }
    ::closedir(dir);
    return count;
}

// Nanoseconds of CPU used so far by every thread except the main one.
unsigned long long otherThreadsCpuNs()
{
    unsigned long long total = 0;
    DIR *dir = ::opendir("/proc/self/task");
    if (!dir)
        return 0;
    const std::string self = std::to_string(::getpid());
    while (const dirent *entry = ::readdir(dir)) {
        if (entry->d_name[0] == '.' || self == entry->d_name)
            continue;
        const std::string path = std::string("/proc/self/task/") + entry->d_name + "/schedstat";
        if (FILE *file = std::fopen(path.c_str(), "re")) {
            unsigned long long ns = 0;
            if (std::fscanf(file, "%llu", &ns) == 1)
                total += ns;
            std::fclose(file);
        }
    }
    ::closedir(dir);
    return total;
}

void serveRequests(const std::function<bool(const std::vector<std::string> &)> &handle)
{
    std::string line;
    while (readLine(line)) {
        const std::vector<std::string> words = splitWords(line);
        if (words.empty())
            continue;
        if (words[0] == "quit") {
            reply("ok");
            return;
        }
        if (!handle(words))
            reply("err unknown request " + words[0]);
    }
}

bool parseArguments(const std::vector<std::string> &words, std::uint64_t limit, std::size_t &id,
                    ArgumentSet &set, std::string &error)
{
    std::size_t i = 2;
    auto count = [&]() -> std::size_t {
        return i < words.size() ? std::strtoull(words[i++].c_str(), nullptr, 10) : 0;
    };
    const std::size_t pointers = count();
    for (std::size_t k = 0; k < pointers && i < words.size(); ++k) {
        const std::uint64_t offset = std::strtoull(words[i++].c_str(), nullptr, 10);
        if (offset >= limit) {
            error = "pointer offset outside the buffer";
            return false;
        }
        set.offsets.push_back(offset);
    }
    const std::size_t ints = count();
    for (std::size_t k = 0; k < ints && i < words.size(); ++k)
        set.ints.push_back(std::strtoll(words[i++].c_str(), nullptr, 10));
    const std::size_t reals = count();
    for (std::size_t k = 0; k < reals && i < words.size(); ++k)
        set.reals.push_back(std::strtod(words[i++].c_str(), nullptr));
    if (words.size() < 2 || set.offsets.size() != pointers || set.ints.size() != ints ||
        set.reals.size() != reals) {
        error = "malformed argument set";
        return false;
    }
    id = std::strtoull(words[1].c_str(), nullptr, 10);
    return true;
}

bool mapSharedBuffer(int fd, char *&base, std::uint64_t &size)
{
    if (base)
        ::munmap(base, size);
    base = nullptr;
    size = 0;
    struct stat info
    {
    };
    if (::fstat(fd, &info) != 0 || info.st_size <= 0)
        return false;
    void *mapped = ::mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ | PROT_WRITE,
                          MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED)
        return false;
    base = static_cast<char *>(mapped);
    size = static_cast<std::uint64_t>(info.st_size);
    return true;
}

std::string probeOtherThreads(const std::vector<std::string> &words)
{
    const int ms = words.size() > 1 ? std::atoi(words[1].c_str()) : 5;
    // Let idle worker pools finish their spin-wait before measuring.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const unsigned long long before = otherThreadsCpuNs();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const unsigned long long after = otherThreadsCpuNs();
    return "ok " + std::to_string(countThreads()) + " " +
           std::to_string(after > before ? after - before : 0);
}

void endWithTheEngine()
{
    const int fd = g_requestFd;
    std::thread([fd] {
        pollfd engine{fd, 0, 0}; // no events asked: a hang-up is always reported
        for (;;) {
            if (::poll(&engine, 1, -1) > 0 &&
                (engine.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
                ::kill(::getpid(), SIGKILL);
                ::_exit(kExitSetupFailed);
            }
        }
    }).detach();
}

int takeProtocolDescriptors(bool closeInherited)
{
    // Keep the protocol descriptors and the buffer, reassign 0/1 (the candidate's stdout joins
    // the capped diagnostics stream), close everything else that was inherited.
    constexpr int kPrivateFd = 500;
    g_requestFd = ::dup3(kRequestFd, kPrivateFd, O_CLOEXEC);
    g_replyFd = ::dup3(kReplyFd, kPrivateFd + 1, O_CLOEXEC);
    const int bufferFd = ::dup3(kBufferFd, kPrivateFd + 2, O_CLOEXEC);
    const int devNull = ::open("/dev/null", O_RDONLY);
    ::dup2(devNull, 0);
    ::dup2(kDiagnosticFd, 1);
    if (closeInherited) {
        ::syscall(SYS_close_range, 3u, static_cast<unsigned>(kPrivateFd - 1), 0u);
        ::syscall(SYS_close_range, static_cast<unsigned>(kPrivateFd + 3), ~0u, 0u);
    } else {
        // Only our own: the buffer's original number and /dev/null's.
        ::close(kBufferFd);
        if (devNull > 2)
            ::close(devNull);
    }
    if (g_requestFd < 0 || g_replyFd < 0)
        return -1;
    return bufferFd < 0 ? -2 : bufferFd;
}

std::uint64_t numberOption(int argc, char **argv, const char *name, std::uint64_t fallback)
{
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0)
            return std::strtoull(argv[i + 1], nullptr, 10);
    }
    return fallback;
}

const char *textOption(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0)
            return argv[i + 1];
    }
    return nullptr;
}

} // namespace kiln::sandbox
