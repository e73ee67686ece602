// libkiln-torch-confine.so: the PyTorch sandbox's confinement, loaded by kiln_torch_worker.py
// through ctypes. Landlock must come after the CUDA driver has opened its device files (as in
// kiln-cuda-sandbox), which in a Python process happens long after exec, so the worker applies
// it itself once torch has initialised CUDA; a candidate's process then also installs the
// seccomp filter once its module is imported (the import runs ninja). Qt-free.

#include "isolation.h"

#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <vector>

namespace {

std::vector<std::string> splitPaths(const char *list)
{
    std::vector<std::string> paths;
    std::string current;
    for (const char *c = list ? list : ""; *c; ++c) {
        if (*c == ':') {
            if (!current.empty())
                paths.push_back(current);
            current.clear();
        } else {
            current += *c;
        }
    }
    if (!current.empty())
        paths.push_back(current);
    return paths;
}

} // namespace

extern "C" {

// Writes confined to workDir and the ':'-separated writable paths; reads to those, the
// ':'-separated readable paths (the interpreter's own folders) and the system's
// (systemReadablePaths). Returns the Landlock ABI enforced (0 when the kernel has none), negated
// when reads could not be confined.
int kiln_confine(const char *workDir, const char *writable, const char *readable)
{
    using namespace kiln::sandbox;
    // Not dumpable (exec resets it, so it is set here): a process of the same user cannot
    // open this one's descriptors or memory through /proc, and the reference's buffer holds
    // expected outputs.
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    IsolationReport report;
    Limits limits;
    limits.cpuSeconds = 0x7fffffff; // the launcher set the real limits before exec
    limits.addressSpaceBytes = 0;
    limits.openFiles = 4096;
    limits.fileSizeBytes = 4ull << 30;
    std::vector<std::string> reads = systemReadablePaths(true);
    for (const std::string &path : splitPaths(readable))
        reads.push_back(path);
    confineAndLimit(workDir, limits, report, true, splitPaths(writable), reads);
    return report.readsConfined ? report.landlockAbi : -report.landlockAbi;
}

// No new processes, exec, sockets or ptrace from here on. 1 when the filter is installed.
int kiln_forbid_processes()
{
    return kiln::sandbox::forbidProcessesAndNetwork() ? 1 : 0;
}
}
