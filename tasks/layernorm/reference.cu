// Reference for layernorm on CUDA: one block per row; the mean, then the biased variance of the
// centred values, each by a shared-memory tree.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__device__ float block_sum(float value, float *cache)
{
    cache[threadIdx.x] = value;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    const float total = cache[0];
    __syncthreads(); // everyone has read cache[0] before it is reused
    return total;
}

__global__ void layernorm_kernel(const float *x, const float *gamma, const float *beta, float *y,
                                 int cols, float eps)
{
    __shared__ float cache[kThreads];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;

    float localSum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        localSum += in[c];
    const float mean = block_sum(localSum, cache) / cols;

    float localSquares = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = in[c] - mean;
        localSquares += d * d;
    }
    const float variance = block_sum(localSquares, cache) / cols;
    const float inverseStd = 1.0f / sqrtf(variance + eps);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (in[c] - mean) * inverseStd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps, cudaStream_t stream)
{
    layernorm_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
