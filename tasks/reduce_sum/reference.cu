// Reference for reduce_sum on CUDA: each block sums a grid-strided slice with a shared-memory
// tree, a second single-block launch adds the block partials. Scratch is stream-ordered.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__global__ void reduce_sum_partial(const float *x, float *partial, int n)
{
    __shared__ float cache[kThreads];
    float sum = 0.0f;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        sum += x[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = cache[0];
}

extern "C" void reduce_sum(const float *x, float *out, int n, cudaStream_t stream)
{
    int blocks = (n + kThreads - 1) / kThreads;
    if (blocks > kMaxBlocks)
        blocks = kMaxBlocks;
    float *partial = nullptr;
    cudaMallocAsync(reinterpret_cast<void **>(&partial), sizeof(float) * blocks, stream);
    reduce_sum_partial<<<blocks, kThreads, 0, stream>>>(x, partial, n);
    reduce_sum_partial<<<1, kThreads, 0, stream>>>(partial, out, blocks);
    cudaFreeAsync(partial, stream);
}
