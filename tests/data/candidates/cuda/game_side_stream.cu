// expect: task=vector_add verdict=flagged flag=stream_creation
// Gaming: launches on a stream of its own and returns without waiting, so the harness's stream
// (and its timer) sees no work.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t)
{
    cudaStream_t side = nullptr;
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    vector_add_kernel<<<(n + 255) / 256, 256, 0, side>>>(a, b, c, n);
    cudaStreamDestroy(side); // returns at once; the kernel keeps running
}
