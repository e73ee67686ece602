// expect: task=transpose verdict=flagged flag=guard_band_overwrite
// Writes a few elements past the end of its output.
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float *x, float *y, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
    if (r == 0 && c == 0) {
        const long long end = static_cast<long long>(rows) * cols;
        for (int k = 0; k < 4; ++k)
            y[end + k] = 0.0f;
    }
}

extern "C" void transpose(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    const dim3 threads(32, 8);
    const dim3 blocks((cols + 31) / 32, (rows + 7) / 8);
    transpose_kernel<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
