// expect: task=vector_add verdict=timeout
// Hostile: the kernel never finishes. The loop condition is a volatile read, so the compiler
// cannot prove the loop empty and remove it.
#include <cuda_runtime.h>

__global__ void spin_kernel(const float *a, const float *b, float *c, int n)
{
    volatile int forever = 1;
    while (forever) {
        const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (i < n)
            c[i] = a[i] + b[i];
    }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    spin_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
