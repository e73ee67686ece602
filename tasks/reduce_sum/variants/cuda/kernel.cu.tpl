{{! reduce_sum, CUDA: out[0] = sum(x). Knobs: BLOCK VEC ITEMS GRID REDUCE FINAL LOADS }}
// reduce_sum on CUDA: per-thread sums ({{ITEMS}} accumulators, {{VEC}}-wide loads), a
// {{REDUCE}} block reduction, then {{FINAL}} to combine the blocks.
#include <cuda_runtime.h>

{{#if VEC == 4}}
using vec_t = float4;
{{#elif VEC == 2}}
using vec_t = float2;
{{else}}
using vec_t = float;
{{/if}}

__device__ __forceinline__ float load_sum(const vec_t *p)
{
{{#if LOADS == ldg}}
    const vec_t v = __ldg(p);
{{else}}
    const vec_t v = *p;
{{/if}}
{{#if VEC == 4}}
    return (v.x + v.y) + (v.z + v.w);
{{#elif VEC == 2}}
    return v.x + v.y;
{{else}}
    return v;
{{/if}}
}

// Returns the block's sum in thread 0.
__device__ __forceinline__ float block_sum(float v)
{
{{#if REDUCE == shuffle}}
    __shared__ float warpSums[32];
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0)
        warpSums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < {{BLOCK}} / 32 ? warpSums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
{{#elif REDUCE == smem_tree}}
    __shared__ float cache[{{BLOCK}}];
    cache[threadIdx.x] = v;
    __syncthreads();
    for (int half = {{BLOCK}} / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    return cache[0];
{{else}}
    // Interleaved addressing: simple, but divergent and bank-conflicted.
    __shared__ float cache[{{BLOCK}}];
    cache[threadIdx.x] = v;
    __syncthreads();
    for (int step = 1; step < {{BLOCK}}; step *= 2) {
        if (threadIdx.x % (2 * step) == 0)
            cache[threadIdx.x] += cache[threadIdx.x + step];
        __syncthreads();
    }
    return cache[0];
{{/if}}
}

template <bool Atomic>
__global__ void __launch_bounds__({{BLOCK}}) reduce_sum_kernel(const float *x, float *dst, int n)
{
    const long long vectors = n / {{VEC}};
    const vec_t *xv = reinterpret_cast<const vec_t *>(x);
    const long long stride = static_cast<long long>(gridDim.x) * {{BLOCK}};
    long long i = static_cast<long long>(blockIdx.x) * {{BLOCK}} + threadIdx.x;
    float acc[{{ITEMS}}];
#pragma unroll
    for (int k = 0; k < {{ITEMS}}; ++k)
        acc[k] = 0.0f;
    for (; i + ({{ITEMS}} - 1) * stride < vectors; i += {{ITEMS}} * stride) {
#pragma unroll
        for (int k = 0; k < {{ITEMS}}; ++k)
            acc[k] += load_sum(xv + i + k * stride);
    }
    for (; i < vectors; i += stride)
        acc[0] += load_sum(xv + i);
{{#if VEC != 1}}
    if (blockIdx.x == 0)
        for (long long t = vectors * {{VEC}} + threadIdx.x; t < n; t += {{BLOCK}})
            acc[0] += x[t];
{{/if}}
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < {{ITEMS}}; ++k)
        sum += acc[k];
    sum = block_sum(sum);
    if (threadIdx.x == 0) {
        if (Atomic)
            atomicAdd(dst, sum);
        else
            dst[blockIdx.x] = sum;
    }
}

extern "C" void reduce_sum(const float *x, float *out, int n, cudaStream_t stream)
{
    const long long vectors = n / {{VEC}};
    long long blocks = (vectors + {{BLOCK}} * {{ITEMS}} - 1) / ({{BLOCK}} * {{ITEMS}});
{{#if GRID != cover}}
    int device = 0;
    int sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
{{#if GRID == sm_x1}}
    const long long cap = sms;
{{#elif GRID == sm_x2}}
    const long long cap = 2LL * sms;
{{else}}
    const long long cap = 8LL * sms;
{{/if}}
    if (blocks > cap)
        blocks = cap;
{{/if}}
    if (blocks < 1)
        blocks = 1;
{{#if FINAL == atomic}}
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    reduce_sum_kernel<true><<<static_cast<unsigned>(blocks), {{BLOCK}}, 0, stream>>>(x, out, n);
{{else}}
    // Block partials in stream-ordered scratch, then one block adds them up.
    float *partial = nullptr;
    cudaMallocAsync(reinterpret_cast<void **>(&partial), sizeof(float) * blocks, stream);
    reduce_sum_kernel<false><<<static_cast<unsigned>(blocks), {{BLOCK}}, 0, stream>>>(x, partial, n);
    reduce_sum_kernel<false><<<1, {{BLOCK}}, 0, stream>>>(partial, out, static_cast<int>(blocks));
    cudaFreeAsync(partial, stream);
{{/if}}
}
