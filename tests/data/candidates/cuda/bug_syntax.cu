// expect: task=vector_add verdict=compile_error
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i]
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    vector_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
