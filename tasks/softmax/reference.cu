// Reference for softmax on CUDA: one block per row; maximum and sum by shared-memory trees.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void softmax_kernel(const float *x, float *y, int cols)
{
    __shared__ float cache[kThreads];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;

    float localMax = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        localMax = fmaxf(localMax, in[c]);
    cache[threadIdx.x] = localMax;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] = fmaxf(cache[threadIdx.x], cache[threadIdx.x + half]);
        __syncthreads();
    }
    const float rowMax = cache[0];
    __syncthreads();

    float localSum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        localSum += expf(in[c] - rowMax);
    cache[threadIdx.x] = localSum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    const float rowSum = cache[0];

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = expf(in[c] - rowMax) / rowSum;
}

extern "C" void softmax(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    softmax_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
}
