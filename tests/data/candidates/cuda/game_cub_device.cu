// expect: task=reduce_sum verdict=flagged flag=forbidden_library
// Forbidden: CUB's device-wide reduction computes the whole answer (block-level CUB is fine).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

extern "C" void reduce_sum(const float *x, float *out, int n, cudaStream_t stream)
{
    size_t bytes = 0;
    cub::DeviceReduce::Sum(nullptr, bytes, x, out, n, stream);
    void *scratch = nullptr;
    cudaMallocAsync(&scratch, bytes, stream);
    cub::DeviceReduce::Sum(scratch, bytes, x, out, n, stream);
    cudaFreeAsync(scratch, stream);
}
