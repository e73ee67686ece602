// expect: task=vector_add verdict=flagged flag=input_modified
// Uses the tail of an input as scratch on large problems only: the sum is right, but the last 16
// elements of a are overwritten after use. The correctness shapes are small and never trigger
// it; at the timing shape a check that samples one window of each input per call almost never
// lands on the last 64 bytes of a 256 MiB buffer. Every input compared in full after every
// timed call catches it.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void scribble(float *a, int n)
{
    const int i = n - 16 + static_cast<int>(threadIdx.x);
    if (i >= 0)
        a[i] = 0.0f;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
    if (n >= (1 << 22))
        scribble<<<1, 16, 0, stream>>>(const_cast<float *>(a), n);
}
