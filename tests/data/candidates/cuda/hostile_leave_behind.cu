// expect: task=vector_add verdict=pass
// An honest sum that leaves things behind in its process: changed context limits (the printf
// FIFO, the device stack), 64 MiB of device memory never freed, and a thread that never ends.
// probe_left_behind.cu, evaluated next, fails if any of it reaches it.
#include <cuda_runtime.h>

#include <thread>
#include <unistd.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    static bool left = false;
    if (!left) {
        left = true;
        cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 3u << 20);
        cudaDeviceSetLimit(cudaLimitStackSize, 12345 * 8);
        void *kept = nullptr;
        cudaMalloc(&kept, 64u << 20);
        new std::thread([] {
            for (;;)
                ::pause();
        });
    }
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
}
