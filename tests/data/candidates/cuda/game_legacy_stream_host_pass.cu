// expect: task=vector_add verdict=flagged flag=legacy_default_stream
// Gaming, hidden from a device-side preprocess: the launch without a stream only exists where
// __CUDA_ARCH__ is undefined (nvcc's host pass), so the screen must read the host pass too.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
#ifndef __CUDA_ARCH__
    vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
#else
    vector_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
#endif
}
