// expect: task=layernorm verdict=pass
// The textbook form: one block per row, the mean from a block-wide sum, then the variance from
// a second sum of squared deviations, then the normalised row. Plain fp32 throughout; its error
// on offset data stays well inside the task's tolerance (verifier.md, Tolerances).
#include <cuda_runtime.h>

constexpr int kThreads = 256;

// Sum over the block; every thread gets the total.
__device__ float block_sum(float value, float *scratch)
{
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0)
        scratch[warp] = value;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w)
        total += scratch[w];
    __syncthreads(); // scratch is reused by the next sum
    return total;
}

__global__ void layernorm_twopass_kernel(const float *x, const float *gamma, const float *beta,
                                         float *y, int cols, float eps)
{
    __shared__ float scratch[kThreads / 32];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += in[c];
    const float mean = block_sum(sum, scratch) / cols;

    float squares = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float d = in[c] - mean;
        squares += d * d;
    }
    const float variance = block_sum(squares, scratch) / cols;
    const float inverseStd = 1.0f / sqrtf(variance + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = (in[c] - mean) * inverseStd * gamma[c] + beta[c];
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps, cudaStream_t stream)
{
    layernorm_twopass_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, cols, eps);
}
