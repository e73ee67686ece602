// expect: task=vector_add verdict=pass
// Writes zeros, and so is judged wrong, when it finds what hostile_leave_behind.cu leaves in its
// process: the changed printf FIFO or device stack limit. Evaluated after it, it
// passes only if every evaluation gets a process of its own.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n, float keep)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = keep * (a[i] + b[i]);
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    std::size_t fifo = 0, stack = 0;
    cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize);
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    const bool found = fifo == (3u << 20) || stack == 12345 * 8;
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n, found ? 0.0f : 1.0f);
}
