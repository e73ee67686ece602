// expect: task=reduce_sum verdict=pass max_speedup=1.5
// Gaming through the allocator: the reference takes its block partials from the stream-ordered
// memory pool and frees them. The candidate raises the pool's release threshold, so freed blocks
// stay in the pool across synchronisations, and an allocation of the same size on the same
// stream right after the reference gets the same block back, still holding them. It recomputes
// block 0's partial exactly as the reference does, and where the pooled block holds that value
// it only adds up the reference's partials instead of reading x. With the reference timed in
// the candidate's process, every call that follows the reference on the same inputs costs a
// sliver of a real one. With the baseline in a process of its own nothing of the reference is
// ever in the pool, and it passes at the speed of its honest path (the reference's own
// algorithm plus the probe).
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__device__ int pooledIsReference;

__device__ float block_tree(float sum, float *cache)
{
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    return cache[0];
}

// Block 0's partial, summed in the reference's order, against what the pooled block holds.
__global__ void probe_kernel(const float *x, const float *pooled, int n, long long step)
{
    __shared__ float cache[kThreads];
    float sum = 0.0f;
    for (long long i = threadIdx.x; i < n; i += step)
        sum += x[i];
    const float mine = block_tree(sum, cache);
    if (threadIdx.x == 0)
        pooledIsReference = __float_as_uint(mine) == __float_as_uint(pooled[0]) && mine != 0.0f;
}

__global__ void partial_kernel(const float *x, float *partial, int n)
{
    if (pooledIsReference)
        return;
    __shared__ float cache[kThreads];
    float sum = 0.0f;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        sum += x[i];
    const float total = block_tree(sum, cache);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

__global__ void final_kernel(const float *partial, float *out, int blocks)
{
    __shared__ float cache[kThreads];
    float sum = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += blockDim.x)
        sum += partial[i];
    const float total = block_tree(sum, cache);
    if (threadIdx.x == 0)
        out[0] = total;
}

static bool poolKept = false;

extern "C" void reduce_sum(const float *x, float *out, int n, cudaStream_t stream)
{
    if (!poolKept) {
        int device = 0;
        cudaGetDevice(&device);
        cudaMemPool_t pool;
        cudaDeviceGetDefaultMemPool(&pool, device);
        unsigned long long keep = ~0ull;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        poolKept = true;
    }
    int blocks = (n + kThreads - 1) / kThreads;
    if (blocks > kMaxBlocks)
        blocks = kMaxBlocks;
    float *partial = nullptr;
    cudaMallocAsync(reinterpret_cast<void **>(&partial), sizeof(float) * blocks, stream);
    probe_kernel<<<1, kThreads, 0, stream>>>(x, partial, n,
                                             static_cast<long long>(blocks) * kThreads);
    partial_kernel<<<blocks, kThreads, 0, stream>>>(x, partial, n);
    final_kernel<<<1, kThreads, 0, stream>>>(partial, out, blocks);
    cudaFreeAsync(partial, stream);
}
