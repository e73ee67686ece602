// kiln-torch-sandbox: starts the PyTorch sandbox (protocol.h, "PyTorch sandbox"). It isolates
// itself as kiln-sandbox does (user and network namespaces, writes confined by Landlock to the
// work directory, the extension cache and the GPU's device files, resource limits, a scrubbed
// environment, inherited descriptors closed) and then executes the user's python3 on
// kiln_torch_worker.py, which speaks the protocol on the same descriptors. Qt-free.

#include "channel.h"
#include "isolation.h"
#include "protocol.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace kiln::sandbox;

std::string option(int argc, char **argv, const char *name, const char *fallback = "")
{
    const char *value = textOption(argc, argv, name);
    return value ? value : fallback;
}

// The driver opens /dev/nvidia* for writing (and torch /dev/shm): Landlock must let it.
std::vector<std::string> deviceFiles()
{
    std::vector<std::string> paths{"/dev/shm"};
    if (DIR *dev = ::opendir("/dev")) {
        while (const dirent *entry = ::readdir(dev)) {
            if (std::strncmp(entry->d_name, "nvidia", 6) == 0)
                paths.push_back(std::string("/dev/") + entry->d_name);
        }
        ::closedir(dev);
    }
    return paths;
}

void scrubEnvironment(int argc, char **argv, const std::string &workDir)
{
    const std::string cudaHome = option(argc, argv, "--cuda-home", "/usr/local/cuda");
    const std::string sitePath = option(argc, argv, "--python-path");
    const std::string cache = option(argc, argv, "--extensions");
    const std::string arch = option(argc, argv, "--arch");
    const std::string jobs = option(argc, argv, "--jobs", "2");
    // The interpreter's own bin folder first: a virtual environment keeps ninja there, and
    // load_inline needs it.
    const std::string python = option(argc, argv, "--python", "/usr/bin/python3");
    const std::string pythonBin = python.substr(0, python.find_last_of('/'));
    ::clearenv();
    ::setenv("PATH", (pythonBin + ":" + cudaHome + "/bin:/usr/local/bin:/usr/bin:/bin").c_str(), 1);
    ::setenv("LANG", "C.UTF-8", 1);
    ::setenv("HOME", workDir.c_str(), 1);
    ::setenv("TMPDIR", workDir.c_str(), 1);
    ::setenv("CUDA_HOME", cudaHome.c_str(), 1);
    ::setenv("CUDA_CACHE_DISABLE", "1", 1);
    ::setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    ::setenv("PYTHONNOUSERSITE", "1", 1);
    ::setenv("MAX_JOBS", jobs.c_str(), 1);
    if (!sitePath.empty())
        ::setenv("PYTHONPATH", sitePath.c_str(), 1);
    if (!cache.empty())
        ::setenv("TORCH_EXTENSIONS_DIR", cache.c_str(), 1);
    // Kiln's bytecode of the interpreter's packages (TorchBytecode): read only where Landlock
    // keeps every sandbox's writes out of it (the worker also refuses to go on unconfined).
    const std::string pycache = option(argc, argv, "--pycache");
    if (!pycache.empty() && landlockAbi() > 0)
        ::setenv("PYTHONPYCACHEPREFIX", pycache.c_str(), 1);
    // Without a visible GPU (a build process) load_inline still needs the architecture.
    if (!arch.empty())
        ::setenv("TORCH_CUDA_ARCH_LIST", arch.c_str(), 1);
    // The user's choice of GPUs; none at all for a build, which only compiles.
    const std::string role = option(argc, argv, "--role", "candidate");
    const std::string visible = option(argc, argv, "--visible-devices");
    if (role == "build")
        ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    else if (!visible.empty())
        ::setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
    // What the candidate's kernel language needs (--env NAME=VALUE, "{workdir}" replaced): a
    // JIT compiler's cache in this process's own work folder.
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--env") != 0)
            continue;
        std::string entry = argv[i + 1];
        const std::string::size_type equals = entry.find('=');
        if (equals == std::string::npos || equals == 0)
            continue;
        for (std::string::size_type at; (at = entry.find("{workdir}")) != std::string::npos;)
            entry.replace(at, 9, workDir);
        ::setenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str(), 1);
    }
}

} // namespace

int main(int argc, char **argv)
{
    const std::string workDir = option(argc, argv, "--workdir");
    const std::string python = option(argc, argv, "--python", "/usr/bin/python3");
    const std::string worker = option(argc, argv, "--worker");
    const std::string role = option(argc, argv, "--role", "candidate");
    const std::string device = option(argc, argv, "--device", "cuda");
    if (workDir.empty() || ::chdir(workDir.c_str()) != 0 || worker.empty()) {
        std::fprintf(stderr, "kiln-torch-sandbox: --workdir DIR and --worker FILE are required\n");
        return kExitSetupFailed;
    }
    const std::string cache = option(argc, argv, "--extensions");
    scrubEnvironment(argc, argv, workDir);
    ::umask(077);

    IsolationReport report;
    if (numberOption(argc, argv, "--userns", 1) != 0)
        isolateNamespaces(report);
    Limits limits;
    limits.cpuSeconds = int(numberOption(argc, argv, "--cpu-seconds", 3600));
    limits.addressSpaceBytes = 0; // the CUDA driver maps huge ranges
    limits.openFiles = 4096;
    limits.fileSizeBytes = 4ull << 30; // extension objects and libraries
    std::vector<std::string> writable =
        role == "build" ? std::vector<std::string>{"/dev/shm"} : deviceFiles();
    if (!cache.empty())
        writable.push_back(cache);
    // Kiln's precompiled headers for load_inline's host code: a build process makes them
    // where missing and gives up writing them before it imports its candidate.
    const std::string headers = option(argc, argv, "--inline-headers");
    if (role == "build" && !headers.empty()) {
        writable.push_back(headers);
        ::setenv("KILN_INLINE_HEADERS", headers.c_str(), 1);
    }
    // Limits now; Landlock later, from the worker, once CUDA has opened its device files.
    confineAndLimit(workDir, limits, report, false);
    std::string writableList;
    for (const std::string &path : writable)
        writableList += (writableList.empty() ? "" : ":") + path;
    ::setenv("KILN_WORKDIR", workDir.c_str(), 1);
    ::setenv("KILN_WRITABLE", writableList.c_str(), 1);
    // The protocol descriptors 0-3 stay; everything else inherited is closed.
    ::syscall(SYS_close_range, 4u, ~0u, 0u);
    const std::string isolation = report.describe();
    ::setenv("KILN_ISOLATION", isolation.c_str(), 1);
    const std::string jit = option(argc, argv, "--jit", "0");
    const std::string defer = option(argc, argv, "--defer-device", "0");
    std::vector<char *> args{
        const_cast<char *>(python.c_str()), const_cast<char *>("-B"),
        const_cast<char *>(worker.c_str()), const_cast<char *>("--role"),
        const_cast<char *>(role.c_str()),   const_cast<char *>("--device"),
        const_cast<char *>(device.c_str()), const_cast<char *>("--jit"),
        const_cast<char *>(jit.c_str()),    const_cast<char *>("--defer-device"),
        const_cast<char *>(defer.c_str()),  nullptr};
    ::execv(python.c_str(), args.data());
    std::printf("err cannot run %s: %s\n", python.c_str(), std::strerror(errno));
    return kExitSetupFailed;
}
