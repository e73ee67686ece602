// expect: task=vector_add verdict=flagged flag=side_stream_work
// Gaming past the screen: a null stream kept in a variable is not recognised statically
// (verifier.md), so the kernel goes to the legacy default stream, which the harness's
// non-blocking stream does not wait for. The device is still busy after the timed stream's stop
// event; that tail is this process's own work, so it is flagged whatever else runs on the GPU.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t)
{
    cudaStream_t elsewhere = 0;
    vector_add_kernel<<<(n + 255) / 256, 256, 0, elsewhere>>>(a, b, c, n);
}
