// Times the offline policy's CPU variants (bench_offline_render <dir> cpu N) at the tasks' CPU
// timing shapes: median of 15 calls after 3 warm-ups, caches flushed by touching 64 MiB before
// each call. Correctness is tst_variantspace's job; this only ranks speed.
//   cpu_harness <task> <dir>      (dir holds manifest.tsv and v<i>.so)
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const std::string task = argv[1], dir = argv[2];
    std::vector<float> a(1 << 21, 1.0f), b(1 << 21, 0.5f), c(1 << 21, 0.25f), y(1 << 21);
    std::vector<char> flush(64 << 20);
    std::ifstream manifest(dir + "/manifest.tsv");
    std::string line;
    std::printf("task\tvariant\torigin\tquality\tms\tknobs\n");
    while (std::getline(manifest, line)) {
        std::istringstream f(line);
        std::string index, origin, quality, knobs;
        std::getline(f, index, '\t');
        std::getline(f, origin, '\t');
        std::getline(f, quality, '\t');
        std::getline(f, knobs, '\t');
        void *h = dlopen((dir + "/v" + index + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
        void *fn = h ? dlsym(h, task.c_str()) : nullptr;
        if (!fn) {
            std::printf("%s\t%s\t%s\t%s\tno_so\t%s\n", task.c_str(), index.c_str(), origin.c_str(),
                        quality.c_str(), knobs.c_str());
            continue;
        }
        auto call = [&] {
            if (task == "vector_add")
                reinterpret_cast<void (*)(const float *, const float *, float *, int)>(fn)(
                    a.data(), b.data(), y.data(), 1048576);
            else if (task == "reduce_sum")
                reinterpret_cast<void (*)(const float *, float *, int)>(fn)(a.data(), y.data(),
                                                                            1048576);
            else if (task == "softmax")
                reinterpret_cast<void (*)(const float *, float *, int, int)>(fn)(a.data(), y.data(),
                                                                                 256, 1000);
            else if (task == "layernorm")
                reinterpret_cast<void (*)(const float *, const float *, const float *, float *, int,
                                          int, float)>(fn)(a.data(), b.data(), c.data(), y.data(),
                                                           256, 1024, 1e-5f);
            else if (task == "matmul")
                reinterpret_cast<void (*)(const float *, const float *, float *, int, int, int)>(
                    fn)(a.data(), b.data(), y.data(), 128, 128, 128);
            else if (task == "transpose")
                reinterpret_cast<void (*)(const float *, float *, int, int)>(fn)(a.data(), y.data(),
                                                                                 768, 1000);
        };
        std::vector<double> t;
        for (int i = 0; i < 18; ++i) {
            for (size_t k = 0; k < flush.size(); k += 64)
                flush[k] += 1;
            const auto s = std::chrono::steady_clock::now();
            call();
            const auto e = std::chrono::steady_clock::now();
            if (i >= 3)
                t.push_back(std::chrono::duration<double, std::milli>(e - s).count());
        }
        std::sort(t.begin(), t.end());
        std::printf("%s\t%s\t%s\t%s\t%.4f\t%s\n", task.c_str(), index.c_str(), origin.c_str(),
                    quality.c_str(), t[t.size() / 2], knobs.c_str());
        std::fflush(stdout);
    }
    return 0;
}
