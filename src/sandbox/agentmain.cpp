// kiln-agent-sandbox: runs one coding agent's command for Kiln's command policy. It confines
// itself with Landlock (writes to the agent's work folder and the folders given with --write,
// reads and exec to those, the system's folders and the ones given with --read; the network stays
// open, since the agent calls its model's API, but no Unix-domain socket can be made), and then
// executes the command. Its first line on stderr says
// what confinement took effect. Qt-free.
//   kiln-agent-sandbox --workdir DIR [--read PATH]... [--write PATH]... -- PROGRAM [ARG]...

#include "isolation.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace kiln::sandbox;

constexpr int kExitSetupFailed = 126;

struct Arguments
{
    std::string workDir;
    std::vector<std::string> readable;
    std::vector<std::string> writable;
    std::vector<char *> command; // null-terminated
};

bool parse(int argc, char **argv, Arguments &out)
{
    int i = 1;
    for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        if (i + 1 >= argc)
            return false;
        const std::string name = argv[i];
        const std::string value = argv[++i];
        if (name == "--workdir")
            out.workDir = value;
        else if (name == "--read")
            out.readable.push_back(value);
        else if (name == "--write")
            out.writable.push_back(value);
        else
            return false;
    }
    for (++i; i < argc; ++i)
        out.command.push_back(argv[i]);
    out.command.push_back(nullptr);
    return !out.workDir.empty() && out.command.size() > 1;
}

// Besides the system's folders: what name resolution and TLS read, and /proc (the agent's own
// processes have pids of their own; Landlock keeps them from tracing or reading the memory of
// any process outside the sandbox).
std::vector<std::string> agentReadablePaths(std::vector<std::string> extra)
{
    std::vector<std::string> paths = systemReadablePaths(false);
    for (const char *path : {"/proc", "/etc/resolv.conf", "/etc/hosts", "/etc/host.conf",
                             "/etc/gai.conf", "/etc/services", "/etc/protocols", "/etc/ssl",
                             "/etc/ca-certificates", "/etc/pki", "/etc/mime.types"})
        paths.emplace_back(path);
    paths.insert(paths.end(), extra.begin(), extra.end());
    return paths;
}

} // namespace

int main(int argc, char **argv)
{
    Arguments args;
    if (!parse(argc, argv, args)) {
        std::fprintf(stderr, "usage: kiln-agent-sandbox --workdir DIR [--read PATH]... "
                             "[--write PATH]... -- PROGRAM [ARG]...\n");
        return kExitSetupFailed;
    }
    if (::chdir(args.workDir.c_str()) != 0) {
        std::fprintf(stderr, "kiln-agent-sandbox: cannot enter %s: %s\n", args.workDir.c_str(),
                     std::strerror(errno));
        return kExitSetupFailed;
    }
    // The engine made this process a session leader: its group is the agent and its children.
    // Temporary files go inside the work folder; terminals are opened read-write.
    const std::string temporary = args.workDir + "/tmp";
    ::mkdir(temporary.c_str(), 0700);
    ::setenv("TMPDIR", temporary.c_str(), 1);
    for (const char *terminal : {"/dev/tty", "/dev/pts", "/dev/ptmx"})
        args.writable.emplace_back(terminal);
    IsolationReport report;
    confineAgent(args.workDir, args.writable, agentReadablePaths(args.readable), report);
    const bool socketsClosed = forbidUnixSockets();
    dropCapabilities();
    std::fprintf(stderr, "kiln-agent-sandbox: landlock=%d reads=%d unix_sockets=%d\n",
                 report.landlockAbi, report.readsConfined ? 1 : 0, socketsClosed ? 0 : 1);
    std::fflush(stderr);
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
    ::execvp(args.command[0], args.command.data());
    std::fprintf(stderr, "kiln-agent-sandbox: cannot run %s: %s\n", args.command[0],
                 std::strerror(errno));
    return kExitSetupFailed;
}
