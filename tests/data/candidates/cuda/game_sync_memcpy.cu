// expect: task=vector_add verdict=flagged flag=legacy_default_stream
// Gaming: computes into scratch on the stream, then copies with the synchronous cudaMemcpy,
// which runs on the legacy default stream (not ordered with the harness's stream).
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    float *scratch = nullptr;
    cudaMallocAsync(reinterpret_cast<void **>(&scratch), sizeof(float) * n, stream);
    vector_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, scratch, n);
    cudaStreamSynchronize(stream);
    cudaMemcpy(c, scratch, sizeof(float) * n, cudaMemcpyDeviceToDevice);
    cudaFreeAsync(scratch, stream);
}
