// expect: task=vector_add verdict=pass
// Honest twin of game_uninitialized_scratch.cu: the same stream-ordered scratch, set to zero
// before it is read, passes whatever the allocator handed out.
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
    cudaMemsetAsync(scratch, 0, sizeof(float) * size_t(n), stream);
    const int threads = 256;
    accumulate<<<(n + threads - 1) / threads, threads, 0, stream>>>(a, b, scratch, c, n);
    cudaFreeAsync(scratch, stream);
}
