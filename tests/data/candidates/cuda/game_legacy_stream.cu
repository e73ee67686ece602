// expect: task=vector_add verdict=flagged flag=legacy_default_stream
// Gaming: launches on the legacy default stream, which the harness's non-blocking stream does
// not wait for.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    (void)stream;
    vector_add_kernel<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
