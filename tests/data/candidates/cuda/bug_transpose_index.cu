// expect: task=transpose verdict=wrong
// An honest bug: the output index uses cols instead of rows, which is only right when the matrix
// is square.
#include <cuda_runtime.h>

__global__ void transpose_kernel(const float *x, float *y, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols && static_cast<long long>(c) * cols + r < static_cast<long long>(rows) * cols)
        y[static_cast<long long>(c) * cols + r] = x[static_cast<long long>(r) * cols + c];
}

extern "C" void transpose(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    const dim3 threads(32, 8);
    const dim3 blocks((cols + 31) / 32, (rows + 7) / 8);
    transpose_kernel<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
