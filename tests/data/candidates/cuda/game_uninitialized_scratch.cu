// expect: task=vector_add verdict=wrong
// Relies on memory it never wrote: it adds a into stream-ordered scratch that it assumes holds
// zeros, then reads the sum back. Fresh device memory is zero, so a harness whose allocators
// hand out fresh memory passes it; memory that held anything else gives garbage. The sandbox
// fills both allocators' first memory with a poison pattern.
#include <cuda_runtime.h>

__global__ void accumulate(const float *a, const float *b, float *scratch, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        scratch[i] += a[i];
        c[i] = scratch[i] + b[i];
    }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    float *scratch = nullptr;
    cudaMallocAsync(reinterpret_cast<void **>(&scratch), sizeof(float) * size_t(n), stream);
    const int threads = 256;
    accumulate<<<(n + threads - 1) / threads, threads, 0, stream>>>(a, b, scratch, c, n);
    cudaFreeAsync(scratch, stream);
}
