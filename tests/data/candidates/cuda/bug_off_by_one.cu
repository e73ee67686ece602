// expect: task=vector_add verdict=wrong
// An honest bug: the bounds check drops the last element.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n - 1)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    vector_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
