// expect: task=transpose verdict=pass
// A 32x32 tile staged in shared memory with one column of padding (no bank conflicts): reads
// and writes are both coalesced. Edges are bounds-checked.
#include <cuda_runtime.h>

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_tiled_kernel(const float *x, float *y, int rows, int cols)
{
    __shared__ float tile[kTile][kTile + 1];
    const int c = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kRows) {
        const int r = blockIdx.y * kTile + j;
        if (r < rows && c < cols)
            tile[j][threadIdx.x] = x[static_cast<long long>(r) * cols + c];
    }
    __syncthreads();
    // The transposed block: its rows are columns of x.
    const int r = blockIdx.y * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kRows) {
        const int outRow = blockIdx.x * kTile + j; // a column of x
        if (outRow < cols && r < rows)
            y[static_cast<long long>(outRow) * rows + r] = tile[threadIdx.x][j];
    }
}

extern "C" void transpose(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    const dim3 threads(kTile, kRows);
    const dim3 blocks((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    transpose_tiled_kernel<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
