// How many fresh CUDA contexts one GPU gives a second (docs/performance.md, "Context rate"):
//   bench_context_rate [--processes 1,4,8,16] [--rounds 2]
// Each round starts N processes at once; each creates its context (cudaFree(nullptr)) and
// exits, which destroys it. A process of this program holds a context throughout, as the GPU
// checker does, so the device stays initialised. The rate is what bounds single-use candidate
// sandboxes: every candidate that reaches the GPU costs one context. Prints one JSON document.

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// In a child: the context alone, reported on stdout in milliseconds.
int createContext()
{
    const double start = seconds();
    const cudaError_t error = cudaFree(nullptr);
    std::printf("%.1f\n", (seconds() - start) * 1e3);
    return error == cudaSuccess ? 0 : 1;
}

std::vector<int> counts(const char *list)
{
    std::vector<int> values;
    for (const char *p = list; *p;) {
        values.push_back(std::atoi(p));
        const char *comma = std::strchr(p, ',');
        p = comma ? comma + 1 : p + std::strlen(p);
    }
    return values;
}

// N children at once; the wall time until the last has exited.
double round(int processes, bool *ok)
{
    const double start = seconds();
    std::vector<pid_t> children;
    for (int i = 0; i < processes; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl("/proc/self/exe", "bench_context_rate", "--child",
                    static_cast<char *>(nullptr));
            ::_exit(127);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        *ok = *ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    return seconds() - start;
}

} // namespace

int main(int argc, char **argv)
{
    const char *list = "1,4,8,16";
    int rounds = 2;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--child"))
            return createContext();
        if (!std::strcmp(argv[i], "--processes") && i + 1 < argc)
            list = argv[++i];
        else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = std::atoi(argv[++i]);
    }
    if (cudaFree(nullptr) != cudaSuccess) {
        std::fprintf(stderr, "bench_context_rate: no usable GPU\n");
        return 2;
    }
    cudaDeviceProp props{};
    cudaGetDeviceProperties(&props, 0);
    std::printf("{\"device\": \"%s\", \"rows\": [", props.name);
    bool ok = true;
    const char *separator = "";
    for (int processes : counts(list)) {
        for (int r = 0; r < rounds; ++r) {
            // The children's own lines go to /dev/null: only the wall time counts here.
            std::fflush(stdout);
            const int saved = ::dup(1);
            std::freopen("/dev/null", "w", stdout);
            const double wall = round(processes, &ok);
            std::fflush(stdout);
            ::dup2(saved, 1);
            ::close(saved);
            std::printf("%s\n  {\"processes\": %d, \"wall_ms\": %.0f, \"contexts_per_s\": %.2f}",
                        separator, processes, wall * 1e3, processes / wall);
            separator = ",";
        }
    }
    std::printf("\n], \"ok\": %s}\n", ok ? "true" : "false");
    return ok ? 0 : 1;
}
