{{! softmax, CUDA, per row. Knobs: MAPPING BLOCK PASSES VEC REDUCE EXP CACHE }}
// softmax on CUDA: {{MAPPING}} mapping, {{BLOCK}} threads, {{PASSES}} statistics, {{VEC}}-wide
// loads, {{REDUCE}} reductions, row cached in {{CACHE}}.
{{#if MAPPING == auto}}
#include <cuda_runtime.h>
{{else}}
#ifndef INFINITY // NVRTC has no <math.h>
#define INFINITY __int_as_float(0x7f800000)
#endif
{{/if}}

constexpr int kBlock = {{BLOCK}};
// Floats per thread when the row is cached in registers: rows up to 8192 fit below 1024 threads.
constexpr int kCache = kBlock <= 512 ? 8192 / kBlock : 16;

__device__ __forceinline__ float softmax_exp(float v)
{
{{#if EXP == exp2f}}
    return exp2f(v * 1.4426950408889634f);
{{else}}
    return expf(v);
{{/if}}
}

struct MaxOp
{
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp
{
    __device__ float operator()(float a, float b) const { return a + b; }
};

template <int G>
__device__ __forceinline__ void group_sync()
{
    if (G == 32)
        __syncwarp();
    else
        __syncthreads();
}

// Reduces v over the G threads of a group (a warp or the whole block); every thread gets the result.
template <int G, typename Op>
__device__ __forceinline__ float group_reduce(float v, float identity, float *scratch, Op op)
{
{{#if REDUCE == shuffle}}
    for (int offset = 16; offset > 0; offset >>= 1)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    if (G > 32) {
        const int lane = threadIdx.x & 31;
        const int warp = threadIdx.x >> 5;
        __syncthreads();
        if (lane == 0)
            scratch[warp] = v;
        __syncthreads();
        v = lane < G / 32 ? scratch[lane] : identity;
        for (int offset = 16; offset > 0; offset >>= 1)
            v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
    }
    return v;
{{else}}
    const int t = threadIdx.x % G;
    group_sync<G>();
    scratch[t] = v;
    group_sync<G>();
    for (int half = G / 2; half > 0; half >>= 1) {
        if (t < half)
            scratch[t] = op(scratch[t], scratch[t + half]);
        group_sync<G>();
    }
    v = scratch[0];
    group_sync<G>();
    (void)identity;
    return v;
{{/if}}
}

// One row per group of G threads (G = 32: a warp per row; G = kBlock: a block per row).
{{#if MAPPING == auto}}
template <int G>
__global__ void __launch_bounds__(kBlock) softmax_kernel(const float *x, float *y, int rows, int cols)
{
{{else}}
// kiln-launch: grid=({{#if MAPPING == warp_per_row}}(rows + {{BLOCK}} / 32 - 1) / ({{BLOCK}} / 32){{else}}rows{{/if}}) block=({{BLOCK}})
extern "C" __global__ void __launch_bounds__(kBlock)
    softmax(const float *x, float *y, int rows, int cols)
{
{{#if MAPPING == warp_per_row}}
    constexpr int G = 32; // a warp per row
{{else}}
    constexpr int G = kBlock; // a block per row
{{/if}}
{{/if}}
    __shared__ float shared[kBlock];
    constexpr int groups = kBlock / G;
    const int group = threadIdx.x / G;
    const int t = threadIdx.x % G;
    float *scratch = shared + group * G;
{{#if VEC == 4}}
    const bool vec = (cols % 4) == 0;
{{/if}}
    for (long long row = static_cast<long long>(blockIdx.x) * groups + group; row < rows;
         row += static_cast<long long>(gridDim.x) * groups) {
        const float *in = x + row * cols;
        float *out = y + row * cols;
{{#if CACHE == registers}}
        if (cols <= G * kCache) {
            // The whole row lives in registers: one read, one write.
            float v[kCache];
{{#if VEC == 4}}
            if (vec) {
#pragma unroll
                for (int k = 0; k < kCache / 4; ++k) {
                    const int c4 = t + k * G;
                    float4 q = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
                    if (c4 < cols / 4)
                        q = reinterpret_cast<const float4 *>(in)[c4];
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
                    v[k] = c < cols ? in[c] : -INFINITY;
                }
            }
            float m = -INFINITY;
#pragma unroll
            for (int k = 0; k < kCache; ++k)
                m = fmaxf(m, v[k]);
            m = group_reduce<G>(m, -INFINITY, scratch, MaxOp());
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k < kCache; ++k) {
                v[k] = softmax_exp(v[k] - m);
                s += v[k];
            }
            s = group_reduce<G>(s, 0.0f, scratch, SumOp());
            const float inv = 1.0f / s;
{{#if VEC == 4}}
            if (vec) {
#pragma unroll
                for (int k = 0; k < kCache / 4; ++k) {
                    const int c4 = t + k * G;
                    if (c4 < cols / 4)
                        reinterpret_cast<float4 *>(out)[c4] =
                            make_float4(v[4 * k] * inv, v[4 * k + 1] * inv, v[4 * k + 2] * inv,
                                        v[4 * k + 3] * inv);
                }
            } else
{{/if}}
            {
#pragma unroll
                for (int k = 0; k < kCache; ++k) {
                    const int c = t + k * G;
                    if (c < cols)
                        out[c] = v[k] * inv;
                }
            }
            continue;
        }
{{/if}}
{{#if PASSES == online}}
        // One sweep keeps a running maximum and a rescaled running sum.
        float m = -INFINITY;
        float s = 0.0f;
{{#if VEC == 4}}
        if (vec) {
            for (int c4 = t; c4 < cols / 4; c4 += G) {
                const float4 q = reinterpret_cast<const float4 *>(in)[c4];
                const float qm = fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w));
                if (qm > m) {
                    s *= softmax_exp(m - qm);
                    m = qm;
                }
                s += softmax_exp(q.x - m) + softmax_exp(q.y - m) + softmax_exp(q.z - m) +
                     softmax_exp(q.w - m);
            }
        } else
{{/if}}
        {
            for (int c = t; c < cols; c += G) {
                const float v = in[c];
                if (v > m) {
                    s *= softmax_exp(m - v);
                    m = v;
                }
                s += softmax_exp(v - m);
            }
        }
        const float rowMax = group_reduce<G>(m, -INFINITY, scratch, MaxOp());
        s = m == -INFINITY ? 0.0f : s * softmax_exp(m - rowMax);
        const float rowSum = group_reduce<G>(s, 0.0f, scratch, SumOp());
{{else}}
        float m = -INFINITY;
{{#if VEC == 4}}
        if (vec) {
            for (int c4 = t; c4 < cols / 4; c4 += G) {
                const float4 q = reinterpret_cast<const float4 *>(in)[c4];
                m = fmaxf(m, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
            }
        } else
{{/if}}
        {
            for (int c = t; c < cols; c += G)
                m = fmaxf(m, in[c]);
        }
        const float rowMax = group_reduce<G>(m, -INFINITY, scratch, MaxOp());
        float s = 0.0f;
{{#if VEC == 4}}
        if (vec) {
            for (int c4 = t; c4 < cols / 4; c4 += G) {
                const float4 q = reinterpret_cast<const float4 *>(in)[c4];
                s += softmax_exp(q.x - rowMax) + softmax_exp(q.y - rowMax) +
                     softmax_exp(q.z - rowMax) + softmax_exp(q.w - rowMax);
            }
        } else
{{/if}}
        {
            for (int c = t; c < cols; c += G)
                s += softmax_exp(in[c] - rowMax);
        }
        const float rowSum = group_reduce<G>(s, 0.0f, scratch, SumOp());
{{/if}}
        const float inv = 1.0f / rowSum;
{{#if VEC == 4}}
        if (vec) {
            for (int c4 = t; c4 < cols / 4; c4 += G) {
                const float4 q = reinterpret_cast<const float4 *>(in)[c4];
                reinterpret_cast<float4 *>(out)[c4] =
                    make_float4(softmax_exp(q.x - rowMax) * inv, softmax_exp(q.y - rowMax) * inv,
                                softmax_exp(q.z - rowMax) * inv, softmax_exp(q.w - rowMax) * inv);
            }
        } else
{{/if}}
        {
            for (int c = t; c < cols; c += G)
                out[c] = softmax_exp(in[c] - rowMax) * inv;
        }
    }
}

{{#if MAPPING == auto}}
extern "C" void softmax(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    // Short rows: a warp each; long rows: a block each.
    const bool warpPerRow = cols <= 1024;
    if (warpPerRow) {
        const int rowsPerBlock = kBlock / 32;
        const int blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
        softmax_kernel<32><<<blocks, kBlock, 0, stream>>>(x, y, rows, cols);
    } else {
        softmax_kernel<kBlock><<<rows, kBlock, 0, stream>>>(x, y, rows, cols);
    }
}
{{/if}}
