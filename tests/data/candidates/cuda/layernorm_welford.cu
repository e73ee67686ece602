// expect: task=layernorm verdict=pass
// One block per row. Each thread runs Welford's update over its columns; the (count, mean, M2)
// triples are merged by warp shuffles and across warps through shared memory, so offset data
// (values near 50) keep their precision. x is read twice: once for the statistics, once to write.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

struct Welford
{
    float count;
    float mean;
    float m2;
};

__device__ Welford combine(Welford a, Welford b)
{
    if (b.count == 0.0f)
        return a;
    if (a.count == 0.0f)
        return b;
    const float count = a.count + b.count;
    const float delta = b.mean - a.mean;
    const float share = b.count / count;
    return {count, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.count * share};
}

__device__ Welford warp_combine(Welford value)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        Welford other;
        other.count = __shfl_xor_sync(0xffffffffu, value.count, offset);
        other.mean = __shfl_xor_sync(0xffffffffu, value.mean, offset);
        other.m2 = __shfl_xor_sync(0xffffffffu, value.m2, offset);
        value = combine(value, other);
    }
    return value;
}

__global__ void layernorm_welford_kernel(const float *x, const float *gamma, const float *beta,
                                         float *y, int cols, float eps)
{
    __shared__ Welford warpParts[kThreads / 32];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;

    Welford local = {0.0f, 0.0f, 0.0f};
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = in[c];
        local.count += 1.0f;
        const float delta = v - local.mean;
        local.mean += delta / local.count;
        local.m2 += delta * (v - local.mean);
    }
    local = warp_combine(local);
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0)
        warpParts[warp] = local;
    __syncthreads();
    Welford row = warpParts[0];
    for (int w = 1; w < kThreads / 32; ++w)
        row = combine(row, warpParts[w]);

    const float mean = row.mean;
    const float inverseStd = rsqrtf(row.m2 / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (in[c] - mean) * inverseStd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps, cudaStream_t stream)
{
    layernorm_welford_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
