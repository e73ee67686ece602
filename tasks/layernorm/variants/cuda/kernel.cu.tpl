{{! layernorm, CUDA, per row, biased variance. Knobs: MAPPING BLOCK STATS VEC REDUCE CACHE LOADS }}
// layernorm on CUDA: {{MAPPING}} mapping, {{BLOCK}} threads, {{STATS}} statistics, {{VEC}}-wide
// loads, {{REDUCE}} reductions, row cached in {{CACHE}}.
{{#if MAPPING == auto}}
#include <cuda_runtime.h>
{{/if}}

constexpr int kBlock = {{BLOCK}};
// Floats per thread when the row is cached in registers: rows up to 4096 fit at every size.
constexpr int kCache = kBlock <= 256 ? 4096 / kBlock : 16;

__device__ __forceinline__ float load_f(const float *p)
{
{{#if LOADS == ldg}}
    return __ldg(p);
{{else}}
    return *p;
{{/if}}
}

__device__ __forceinline__ float4 load_f4(const float *p)
{
{{#if LOADS == ldg}}
    return __ldg(reinterpret_cast<const float4 *>(p));
{{else}}
    return *reinterpret_cast<const float4 *>(p);
{{/if}}
}

template <int G>
__device__ __forceinline__ void group_sync()
{
    if (G == 32)
        __syncwarp();
    else
        __syncthreads();
}

// Sums v over the G threads of a group (a warp or the whole block); every thread gets the result.
template <int G, typename T>
__device__ __forceinline__ T group_sum(T v, T *scratch)
{
{{#if REDUCE == shuffle}}
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (G > 32) {
        const int lane = threadIdx.x & 31;
        const int warp = threadIdx.x >> 5;
        __syncthreads();
        if (lane == 0)
            scratch[warp] = v;
        __syncthreads();
        v = lane < G / 32 ? scratch[lane] : T(0);
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, offset);
    }
    return v;
{{else}}
    const int t = threadIdx.x % G;
    group_sync<G>();
    scratch[t] = v;
    group_sync<G>();
    for (int half = G / 2; half > 0; half >>= 1) {
        if (t < half)
            scratch[t] += scratch[t + half];
        group_sync<G>();
    }
    v = scratch[0];
    group_sync<G>();
    return v;
{{/if}}
}

{{#if MAPPING == auto}}
template <int G>
__global__ void __launch_bounds__(kBlock)
    layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y, int rows,
                     int cols, float eps)
{
{{else}}
// kiln-launch: grid=({{#if MAPPING == warp_per_row}}(rows + {{BLOCK}} / 32 - 1) / ({{BLOCK}} / 32){{else}}rows{{/if}}) block=({{BLOCK}})
extern "C" __global__ void __launch_bounds__(kBlock)
    layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
              int cols, float eps)
{
{{#if MAPPING == warp_per_row}}
    constexpr int G = 32; // a warp per row
{{else}}
    constexpr int G = kBlock; // a block per row
{{/if}}
{{/if}}
    __shared__ double shared[kBlock];
    constexpr int groups = kBlock / G;
    const int group = threadIdx.x / G;
    const int t = threadIdx.x % G;
    double *scratchD = shared + group * G;
    float *scratch = reinterpret_cast<float *>(scratchD);
{{#if VEC == 4}}
    const bool vec = (cols % 4) == 0;
{{/if}}
    for (long long row = static_cast<long long>(blockIdx.x) * groups + group; row < rows;
         row += static_cast<long long>(gridDim.x) * groups) {
        const float *in = x + row * cols;
        float *out = y + row * cols;
        float mean = 0.0f;
        float rstd = 0.0f;
{{#if CACHE == registers}}
        if (cols <= G * kCache) {
            // The row stays in registers: one read, two reductions on the cached values.
            float v[kCache];
{{#if VEC == 4}}
            if (vec) {
#pragma unroll
                for (int k = 0; k < kCache / 4; ++k) {
                    const int c = 4 * (t + k * G);
                    float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    if (c < cols)
                        q = load_f4(in + c);
                    v[4 * k] = q.x;
                    v[4 * k + 1] = q.y;
                    v[4 * k + 2] = q.z;
                    v[4 * k + 3] = q.w;
                }
            } else
{{/if}}
            {
#pragma unroll
                for (int k = 0; k < kCache; ++k) {
                    const int c = t + k * G;
                    v[k] = c < cols ? load_f(in + c) : 0.0f;
                }
            }
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < kCache; ++k)
                s += v[k];
            mean = group_sum<G>(s, scratch) / cols;
            float sq = 0.0f;
{{#if VEC == 4}}
            if (vec) {
#pragma unroll
                for (int k = 0; k < kCache; ++k) {
                    const int c = 4 * (t + (k / 4) * G) + (k % 4);
                    const float d = c < cols ? v[k] - mean : 0.0f;
                    sq += d * d;
                }
            } else
{{/if}}
            {
#pragma unroll
                for (int k = 0; k < kCache; ++k) {
                    const int c = t + k * G;
                    const float d = c < cols ? v[k] - mean : 0.0f;
                    sq += d * d;
                }
            }
            rstd = rsqrtf(group_sum<G>(sq, scratch) / cols + eps);
{{#if VEC == 4}}
            if (vec) {
#pragma unroll
                for (int k = 0; k < kCache / 4; ++k) {
                    const int c = 4 * (t + k * G);
                    if (c < cols) {
                        const float4 g = load_f4(gamma + c);
                        const float4 b = load_f4(beta + c);
                        *reinterpret_cast<float4 *>(out + c) =
                            make_float4((v[4 * k] - mean) * rstd * g.x + b.x,
                                        (v[4 * k + 1] - mean) * rstd * g.y + b.y,
                                        (v[4 * k + 2] - mean) * rstd * g.z + b.z,
                                        (v[4 * k + 3] - mean) * rstd * g.w + b.w);
                    }
                }
            } else
{{/if}}
            {
#pragma unroll
                for (int k = 0; k < kCache; ++k) {
                    const int c = t + k * G;
                    if (c < cols)
                        out[c] = (v[k] - mean) * rstd * load_f(gamma + c) + load_f(beta + c);
                }
            }
            continue;
        }
{{/if}}
{{#if STATS == welford}}
        {
            // Per-thread Welford, then Chan's combination through two group sums.
            float n = 0.0f;
            float m = 0.0f;
            float m2 = 0.0f;
            for (int c = t; c < cols; c += G) {
                const float v = load_f(in + c);
                n += 1.0f;
                const float delta = v - m;
                m += delta / n;
                m2 += delta * (v - m);
            }
            mean = group_sum<G>(n * m, scratch) / cols;
            const float spread = m2 + n * (m - mean) * (m - mean);
            rstd = rsqrtf(group_sum<G>(spread, scratch) / cols + eps);
        }
{{#elif STATS == sumsq}}
        {
            // Sum and sum of squares in one sweep, accumulated in double against cancellation.
            double s = 0.0;
            double sq = 0.0;
{{#if VEC == 4}}
            if (vec) {
                for (int c = 4 * t; c < cols; c += 4 * G) {
                    const float4 q = load_f4(in + c);
                    s += static_cast<double>(q.x) + q.y + q.z + q.w;
                    sq += static_cast<double>(q.x) * q.x + static_cast<double>(q.y) * q.y +
                          static_cast<double>(q.z) * q.z + static_cast<double>(q.w) * q.w;
                }
            } else
{{/if}}
            {
                for (int c = t; c < cols; c += G) {
                    const double v = load_f(in + c);
                    s += v;
                    sq += v * v;
                }
            }
            const double meanD = group_sum<G>(s, scratchD) / cols;
            double var = group_sum<G>(sq, scratchD) / cols - meanD * meanD;
            var = var < 0.0 ? 0.0 : var;
            mean = static_cast<float>(meanD);
            rstd = static_cast<float>(1.0 / sqrt(var + eps));
        }
{{else}}
        {
            float s = 0.0f;
{{#if VEC == 4}}
            if (vec) {
                for (int c = 4 * t; c < cols; c += 4 * G) {
                    const float4 q = load_f4(in + c);
                    s += (q.x + q.y) + (q.z + q.w);
                }
            } else
{{/if}}
            {
                for (int c = t; c < cols; c += G)
                    s += load_f(in + c);
            }
            mean = group_sum<G>(s, scratch) / cols;
            float sq = 0.0f;
{{#if VEC == 4}}
            if (vec) {
                for (int c = 4 * t; c < cols; c += 4 * G) {
                    const float4 q = load_f4(in + c);
                    sq += (q.x - mean) * (q.x - mean) + (q.y - mean) * (q.y - mean) +
                          (q.z - mean) * (q.z - mean) + (q.w - mean) * (q.w - mean);
                }
            } else
{{/if}}
            {
                for (int c = t; c < cols; c += G) {
                    const float d = load_f(in + c) - mean;
                    sq += d * d;
                }
            }
            rstd = rsqrtf(group_sum<G>(sq, scratch) / cols + eps);
        }
{{/if}}
{{#if VEC == 4}}
        if (vec) {
            for (int c = 4 * t; c < cols; c += 4 * G) {
                const float4 q = load_f4(in + c);
                const float4 g = load_f4(gamma + c);
                const float4 b = load_f4(beta + c);
                *reinterpret_cast<float4 *>(out + c) = make_float4(
                    (q.x - mean) * rstd * g.x + b.x, (q.y - mean) * rstd * g.y + b.y,
                    (q.z - mean) * rstd * g.z + b.z, (q.w - mean) * rstd * g.w + b.w);
            }
        } else
{{/if}}
        {
            for (int c = t; c < cols; c += G)
                out[c] = (load_f(in + c) - mean) * rstd * load_f(gamma + c) + load_f(beta + c);
        }
    }
}

{{#if MAPPING == auto}}
extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps, cudaStream_t stream)
{
    // Short rows: a warp each; long rows: a block each.
    const bool warpPerRow = cols <= 1024;
    if (warpPerRow) {
        const int rowsPerBlock = kBlock / 32;
        const int blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
        layernorm_kernel<32><<<blocks, kBlock, 0, stream>>>(x, gamma, beta, y, rows, cols, eps);
    } else {
        layernorm_kernel<kBlock><<<rows, kBlock, 0, stream>>>(x, gamma, beta, y, rows, cols, eps);
    }
}
{{/if}}
