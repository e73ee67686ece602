// GPU benchmark of the offline policy's CUDA variant spaces (run on the H200 by run_h200.sh).
// For every variant .so of one task: correctness on odd shapes against a double-precision host
// reference (task tolerances), then timing at the task's CUDA timing shape with CUDA events on a
// non-blocking stream, L2 flushed before every timed call, median of the timed calls. Prints one
// TSV row per variant plus the ceilings it is compared with (device-to-device copy bandwidth,
// cuBLAS SGEMM for matmul).
//   variant_harness <task> <dir> [index]   (dir holds manifest.tsv, v<i>.so and ref.so; with an
//   index only that variant runs, so a crashing one cannot hide the others)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));        \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

using Shape = std::vector<long long>;

struct Buffers
{
    float *in[3] = {nullptr, nullptr, nullptr};
    float *out = nullptr;
    size_t capacity = 0; // floats per buffer
};

static cudaStream_t g_stream;
static float *g_flush = nullptr;
static const size_t kFlushBytes = 256ull << 20;

// Calls the variant entry of `task` with the buffers and shape.
static void call(const std::string &task, void *f, const Buffers &b, const Shape &s)
{
    if (task == "vector_add")
        reinterpret_cast<void (*)(const float *, const float *, float *, int, cudaStream_t)>(f)(
            b.in[0], b.in[1], b.out, int(s[0]), g_stream);
    else if (task == "reduce_sum")
        reinterpret_cast<void (*)(const float *, float *, int, cudaStream_t)>(f)(
            b.in[0], b.out, int(s[0]), g_stream);
    else if (task == "softmax")
        reinterpret_cast<void (*)(const float *, float *, int, int, cudaStream_t)>(f)(
            b.in[0], b.out, int(s[0]), int(s[1]), g_stream);
    else if (task == "layernorm")
        reinterpret_cast<void (*)(const float *, const float *, const float *, float *, int, int,
                                  float, cudaStream_t)>(f)(b.in[0], b.in[1], b.in[2], b.out,
                                                           int(s[0]), int(s[1]), 1e-5f, g_stream);
    else if (task == "matmul")
        reinterpret_cast<void (*)(const float *, const float *, float *, int, int, int,
                                  cudaStream_t)>(f)(b.in[0], b.in[1], b.out, int(s[0]), int(s[1]),
                                                    int(s[2]), g_stream);
    else if (task == "transpose")
        reinterpret_cast<void (*)(const float *, float *, int, int, cudaStream_t)>(f)(
            b.in[0], b.out, int(s[0]), int(s[1]), g_stream);
}

// Element counts of inputs 0..2 and the output.
static void sizes(const std::string &task, const Shape &s, size_t n[4])
{
    n[0] = n[1] = n[2] = n[3] = 0;
    if (task == "vector_add")
        n[0] = n[1] = n[3] = s[0];
    else if (task == "reduce_sum")
        n[0] = s[0], n[3] = 1;
    else if (task == "softmax" || task == "transpose")
        n[0] = n[3] = s[0] * s[1];
    else if (task == "layernorm")
        n[0] = n[3] = s[0] * s[1], n[1] = n[2] = s[1];
    else if (task == "matmul")
        n[0] = s[0] * s[2], n[1] = s[2] * s[1], n[3] = s[0] * s[1];
}

// Host reference in double; returns true when `got` matches within the task's tolerance.
static bool verify(const std::string &task, const Shape &s,
                   const std::vector<std::vector<float>> &in, const std::vector<float> &got,
                   double *maxErr)
{
    *maxErr = 0;
    auto check = [&](double g, double e, double tol) {
        const double err = std::abs(g - e);
        *maxErr = std::max(*maxErr, err);
        return std::isfinite(g) && err <= tol;
    };
    if (task == "vector_add") {
        for (long long i = 0; i < s[0]; ++i)
            if (!check(got[i], double(in[0][i]) + in[1][i],
                       1e-30 + 1e-6 * std::abs(double(in[0][i]) + in[1][i])))
                return false;
    } else if (task == "reduce_sum") {
        double sum = 0, abs = 0;
        for (long long i = 0; i < s[0]; ++i)
            sum += in[0][i], abs += std::abs(in[0][i]);
        return check(got[0], sum, 1e-6 + 1e-4 * std::abs(sum) + 1e-5 * abs);
    } else if (task == "softmax") {
        const long long R = s[0], C = s[1];
        for (long long r = 0; r < R; ++r) {
            double m = -INFINITY, z = 0;
            for (long long c = 0; c < C; ++c)
                m = std::max(m, double(in[0][r * C + c]));
            for (long long c = 0; c < C; ++c)
                z += std::exp(in[0][r * C + c] - m);
            for (long long c = 0; c < C; ++c) {
                const double e = std::exp(in[0][r * C + c] - m) / z;
                if (!check(got[r * C + c], e, 1e-10 + 2e-5 * e))
                    return false;
            }
        }
    } else if (task == "layernorm") {
        const long long R = s[0], C = s[1];
        for (long long r = 0; r < R; ++r) {
            double mean = 0, var = 0;
            for (long long c = 0; c < C; ++c)
                mean += in[0][r * C + c];
            mean /= C;
            for (long long c = 0; c < C; ++c)
                var += (in[0][r * C + c] - mean) * (in[0][r * C + c] - mean);
            var /= C;
            for (long long c = 0; c < C; ++c) {
                const double e =
                    (in[0][r * C + c] - mean) / std::sqrt(var + 1e-5) * in[1][c] + in[2][c];
                if (!check(got[r * C + c], e, 1e-3 + 1e-4 * std::abs(e)))
                    return false;
            }
        }
    } else if (task == "matmul") {
        const long long M = s[0], N = s[1], K = s[2];
        for (long long i = 0; i < M; ++i)
            for (long long j = 0; j < N; ++j) {
                double acc = 0, abs = 0;
                for (long long k = 0; k < K; ++k) {
                    acc += double(in[0][i * K + k]) * in[1][k * N + j];
                    abs += std::abs(double(in[0][i * K + k]) * in[1][k * N + j]);
                }
                if (!check(got[i * N + j], acc, 1e-6 + 1e-5 * std::abs(acc) + 3e-5 * abs))
                    return false;
            }
    } else if (task == "transpose") {
        const long long R = s[0], C = s[1];
        for (long long r = 0; r < R; ++r)
            for (long long c = 0; c < C; ++c)
                if (!check(got[c * R + r], in[0][r * C + c], 0))
                    return false;
    }
    return true;
}

static std::vector<Shape> oddShapes(const std::string &task)
{
    if (task == "vector_add")
        return {{1}, {7}, {1003}, {65537}, {1 << 20}};
    if (task == "reduce_sum")
        return {{1}, {5}, {1001}, {100003}, {(1 << 22) + 3}};
    if (task == "softmax")
        return {{1, 1}, {1, 17}, {7, 1000}, {33, 1025}, {64, 64}, {3, 8191}, {4, 8192}};
    if (task == "layernorm")
        return {{1, 1}, {1, 17}, {7, 1000}, {33, 1025}, {64, 64}, {3, 4099}, {4, 4096}};
    if (task == "matmul")
        return {{1, 1, 1}, {7, 13, 5}, {33, 17, 65}, {65, 70, 31}, {128, 128, 128}, {129, 255, 67}};
    return {{1, 1}, {7, 13}, {65, 33}, {100, 129}, {64, 64}, {1000, 1023}};
}

static Shape timingShape(const std::string &task)
{
    if (task == "vector_add")
        return {67108864};
    if (task == "reduce_sum")
        return {268435456};
    if (task == "softmax")
        return {8192, 8192};
    if (task == "layernorm")
        return {16384, 4096};
    if (task == "matmul")
        return {2048, 2048, 2048};
    return {8192, 8192};
}

// Bytes the roofline counts (task.json) and flops.
static double bytesOf(const std::string &task, const Shape &s)
{
    if (task == "vector_add")
        return 12.0 * s[0];
    if (task == "reduce_sum")
        return 4.0 * s[0] + 4;
    if (task == "layernorm")
        return 8.0 * s[0] * s[1] + 8.0 * s[1];
    if (task == "matmul")
        return 4.0 * (double(s[0]) * s[2] + double(s[2]) * s[1] + double(s[0]) * s[1]);
    return 8.0 * s[0] * s[1];
}

__global__ void fill(float *p, size_t n, unsigned seed, float offset)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        unsigned h = unsigned(i) * 2654435761u ^ seed;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        p[i] = (float(h & 0xffffff) / 16777216.0f - 0.5f) * 4.0f + offset;
    }
}

static float offsetFor(const std::string &task, int input)
{
    if (task == "layernorm")
        return input == 0 ? 20.0f : (input == 1 ? 1.0f : 0.0f);
    if (task == "softmax")
        return 3.0f;
    if (task == "reduce_sum")
        return 0.5f;
    return 0.0f;
}

static double timeVariant(const std::string &task, void *f, const Buffers &b, const Shape &s,
                          int iterations)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 2; ++i)
        call(task, f, b, s);
    std::vector<float> times;
    for (int i = 0; i < iterations; ++i) {
        CHECK(cudaMemsetAsync(g_flush, i, kFlushBytes, g_stream));
        CHECK(cudaEventRecord(start, g_stream));
        call(task, f, b, s);
        CHECK(cudaEventRecord(stop, g_stream));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    CHECK(cudaGetLastError());
    std::sort(times.begin(), times.end());
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return times[times.size() / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: variant_harness <task> <dir>\n");
        return 2;
    }
    const std::string task = argv[1];
    const std::string dir = argv[2];
    CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&g_flush, kFlushBytes));
    const Shape big = timingShape(task);
    size_t n[4];
    sizes(task, big, n);
    Buffers b;
    for (int i = 0; i < 3; ++i)
        if (n[i])
            CHECK(cudaMalloc(&b.in[i], (n[i] + 64) * sizeof(float)));
    CHECK(cudaMalloc(&b.out, (n[3] + 64) * sizeof(float)));

    // Clocks ramp up from idle: keep the GPU busy for half a second before measuring anything.
    {
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        float elapsed = 0;
        cudaEventRecord(e0, g_stream);
        while (elapsed < 500) {
            for (int i = 0; i < 20; ++i)
                CHECK(cudaMemsetAsync(g_flush, i, kFlushBytes, g_stream));
            cudaEventRecord(e1, g_stream);
            cudaEventSynchronize(e1);
            cudaEventElapsedTime(&elapsed, e0, e1);
        }
    }
    // Ceilings: device-to-device copy bandwidth (bytes read + written) and cuBLAS SGEMM.
    double copyGBs = 0;
    {
        const size_t bytes = 1ull << 30;
        void *src, *dst;
        CHECK(cudaMalloc(&src, bytes));
        CHECK(cudaMalloc(&dst, bytes));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        std::vector<float> t;
        for (int i = 0; i < 12; ++i) {
            cudaEventRecord(e0, g_stream);
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_stream);
            cudaEventRecord(e1, g_stream);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (i >= 2)
                t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        copyGBs = 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
        cudaFree(src);
        cudaFree(dst);
    }
    double cublasTflops = 0;
    if (task == "matmul") {
        cublasHandle_t h;
        cublasCreate(&h);
        cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
        cublasSetStream(h, g_stream);
        const int M = int(big[0]), N = int(big[1]), K = int(big[2]);
        fill<<<1024, 256, 0, g_stream>>>(b.in[0], n[0], 1, 0);
        fill<<<1024, 256, 0, g_stream>>>(b.in[1], n[1], 2, 0);
        const float one = 1, zero = 0;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        std::vector<float> t;
        for (int i = 0; i < 12; ++i) {
            cudaEventRecord(e0, g_stream);
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b.in[1], N, b.in[0], K, &zero,
                        b.out, N);
            cudaEventRecord(e1, g_stream);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (i >= 2)
                t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        cublasTflops = 2.0 * M * N * K / (t[t.size() / 2] * 1e-3) / 1e12;
        cublasDestroy(h);
    }
    std::printf("# %s copy_GBps=%.0f cublas_sgemm_TFLOPs=%.2f\n", task.c_str(), copyGBs,
                cublasTflops);
    std::printf("task\tvariant\torigin\tquality\tcorrect\tmax_err\tms\tGBps\tcopy_"
                "frac\tTFLOPs\tcublas_frac\tknobs\n");

    std::vector<std::string> lines;
    {
        std::ifstream manifest(dir + "/manifest.tsv");
        std::string line;
        while (std::getline(manifest, line))
            if (!line.empty())
                lines.push_back(line);
    }
    if (argc > 3) {
        const std::string only = argv[3];
        std::vector<std::string> kept;
        for (const std::string &l : lines)
            if (l.substr(0, l.find('\t')) == only)
                kept.push_back(l);
        lines = kept;
    } else {
        lines.push_back("ref\treference\t-\t{}");
    }
    std::mt19937 gen(7);
    for (const std::string &line : lines) {
        std::istringstream fields(line);
        std::string index, origin, quality, knobs;
        std::getline(fields, index, '\t');
        std::getline(fields, origin, '\t');
        std::getline(fields, quality, '\t');
        std::getline(fields, knobs, '\t');
        const std::string so = dir + (index == "ref" ? "/ref.so" : "/v" + index + ".so");
        void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
        void *f = handle ? dlsym(handle, task.c_str()) : nullptr;
        if (!f) {
            std::printf("%s\t%s\t%s\t%s\tno_so\t\t\t\t\t\t\t%s\n", task.c_str(), index.c_str(),
                        origin.c_str(), quality.c_str(), knobs.c_str());
            continue;
        }
        bool correct = true;
        double worst = 0;
        for (const Shape &s : oddShapes(task)) {
            size_t m[4];
            sizes(task, s, m);
            std::vector<std::vector<float>> in(3);
            std::normal_distribution<float> normal(0.0f, 1.0f);
            for (int i = 0; i < 3; ++i) {
                in[i].resize(m[i]);
                for (float &v : in[i])
                    v = normal(gen) + offsetFor(task, i);
                // Pageable copies may still be in flight when cudaMemcpy returns: order them on
                // the candidate's stream and wait.
                if (m[i])
                    CHECK(cudaMemcpyAsync(b.in[i], in[i].data(), m[i] * sizeof(float),
                                          cudaMemcpyHostToDevice, g_stream));
            }
            CHECK(cudaStreamSynchronize(g_stream));
            // NaN sentinel, ordered before the call on the candidate's (non-blocking) stream.
            CHECK(cudaMemsetAsync(b.out, 0xff, (m[3] + 64) * sizeof(float), g_stream));
            CHECK(cudaStreamSynchronize(g_stream));
            call(task, f, b, s);
            if (cudaStreamSynchronize(g_stream) != cudaSuccess) {
                std::printf("%s\t%s\t%s\t%s\tcrash\n", task.c_str(), index.c_str(), origin.c_str(),
                            quality.c_str());
                return 1; // the context is gone; later variants cannot run
            }
            std::vector<float> got(m[3]);
            CHECK(cudaMemcpy(got.data(), b.out, m[3] * sizeof(float), cudaMemcpyDeviceToHost));
            double err = 0;
            if (!verify(task, s, in, got, &err))
                correct = false;
            worst = std::max(worst, err);
        }
        for (int i = 0; i < 3; ++i)
            if (n[i])
                fill<<<1024, 256, 0, g_stream>>>(b.in[i], n[i], 11 + i, offsetFor(task, i));
        const double ms = timeVariant(task, f, b, big, task == "matmul" ? 5 : 10);
        const double gbs = bytesOf(task, big) / (ms * 1e-3) / 1e9;
        const double tflops =
            task == "matmul" ? 2.0 * big[0] * big[1] * big[2] / (ms * 1e-3) / 1e12 : 0;
        std::printf("%s\t%s\t%s\t%s\t%d\t%.3g\t%.4f\t%.0f\t%.3f\t%.2f\t%.3f\t%s\n", task.c_str(),
                    index.c_str(), origin.c_str(), quality.c_str(), correct ? 1 : 0, worst, ms, gbs,
                    gbs / copyGBs, tflops, cublasTflops > 0 ? tflops / cublasTflops : 0.0,
                    knobs.c_str());
        std::fflush(stdout);
    }
    return 0;
}
