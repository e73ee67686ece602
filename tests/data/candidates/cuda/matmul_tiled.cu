// expect: task=matmul verdict=pass
// 32x32 output tiles through shared memory; each thread of a 32x8 block computes four outputs
// of a column. Every load and store is bounds-checked, so no size needs to be a tile multiple.
#include <cuda_runtime.h>

constexpr int kTile = 32;
constexpr int kRows = 8; // threads per block in y; each covers kTile / kRows rows

__global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[kTile][kTile];
    __shared__ float Bs[kTile][kTile + 1];
    const int col = blockIdx.x * kTile + threadIdx.x;
    const int rowBase = blockIdx.y * kTile;
    float acc[kTile / kRows] = {0.0f, 0.0f, 0.0f, 0.0f};

    for (int k0 = 0; k0 < K; k0 += kTile) {
        for (int r = threadIdx.y; r < kTile; r += kRows) {
            const int row = rowBase + r;
            const int ka = k0 + threadIdx.x;
            As[r][threadIdx.x] =
                row < M && ka < K ? A[static_cast<long long>(row) * K + ka] : 0.0f;
            const int kb = k0 + r;
            Bs[r][threadIdx.x] = kb < K && col < N ? B[static_cast<long long>(kb) * N + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < kTile; ++k) {
            const float b = Bs[k][threadIdx.x];
            for (int j = 0; j < kTile / kRows; ++j)
                acc[j] += As[threadIdx.y + j * kRows][k] * b;
        }
        __syncthreads();
    }
    for (int j = 0; j < kTile / kRows; ++j) {
        const int row = rowBase + threadIdx.y + j * kRows;
        if (row < M && col < N)
            C[static_cast<long long>(row) * N + col] = acc[j];
    }
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    const dim3 threads(kTile, kRows);
    const dim3 blocks((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    matmul_tiled_kernel<<<blocks, threads, 0, stream>>>(A, B, C, M, N, K);
}
