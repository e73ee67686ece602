// expect: task=vector_add verdict=crash
// Hostile: the kernel stores through a wild pointer; the launch fails with an illegal address
// and the CUDA context is lost.
#include <cuda_runtime.h>

__global__ void wild_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i == 0) {
        volatile float *wild = reinterpret_cast<float *>(0x10);
        *wild = 1.0f;
    }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    wild_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
