// expect: task=transpose verdict=pass
// Device-only form (NVRTC): a padded shared-memory tile, launched by the harness.
// kiln-launch: grid=((cols + 31) / 32, (rows + 31) / 32) block=(32, 8)

#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose(const float *x, float *y, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += ROWS) {
        const int r = blockIdx.y * TILE + j;
        if (r < rows && c < cols)
            tile[j][threadIdx.x] = x[static_cast<long long>(r) * cols + c];
    }
    __syncthreads();
    const int r = blockIdx.y * TILE + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += ROWS) {
        const int outRow = blockIdx.x * TILE + j;
        if (outRow < cols && r < rows)
            y[static_cast<long long>(outRow) * rows + r] = tile[threadIdx.x][j];
    }
}
