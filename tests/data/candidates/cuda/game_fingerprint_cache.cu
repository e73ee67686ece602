// expect: task=matmul verdict=pass max_speedup=3
// Gaming that fresh inputs make useless: a small device-side cache of whole results, keyed by a
// hash of 64 sampled elements of A and B (not by pointer, so moving buffers does not defeat it).
// A probe kernel looks the hash up; on a hit the product kernel returns at once and a copy
// kernel writes the remembered answer. With inputs that repeat across timed calls this "runs"
// matmul in a copy's time; with inputs drawn fresh for every call it never hits, and it passes
// at the speed of the tiled product underneath.
#include <cuda_runtime.h>

constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kEntries = 4;
constexpr int kSamples = 64;

__device__ unsigned long long cacheKeys[kEntries];
__device__ int cacheValid[kEntries];
__device__ int cacheNext;
__device__ int hitEntry;
__device__ unsigned long long probeKey;

__global__ void probe_kernel(const float *A, const float *B, long long aSize, long long bSize)
{
    unsigned long long hash = 1469598103934665603ull;
    for (int s = 0; s < kSamples; ++s) {
        const long long i = (static_cast<long long>(s) * 2654435761ll) % aSize;
        const long long j = (static_cast<long long>(s) * 40503ll + 17) % bSize;
        hash = (hash ^ __float_as_uint(A[i])) * 1099511628211ull;
        hash = (hash ^ __float_as_uint(B[j])) * 1099511628211ull;
    }
    probeKey = hash;
    hitEntry = -1;
    for (int e = 0; e < kEntries; ++e)
        if (cacheValid[e] && cacheKeys[e] == hash)
            hitEntry = e;
}

__global__ void matmul_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    if (hitEntry >= 0)
        return;
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

// On a hit: the remembered answer into C. On a miss: C into the next entry.
__global__ void cache_copy_kernel(float *C, float *entries, long long size)
{
    const bool hit = hitEntry >= 0;
    float *entry = entries + static_cast<long long>(hit ? hitEntry : cacheNext) * size;
    const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < size;
         i += step) {
        if (hit)
            C[i] = entry[i];
        else
            entry[i] = C[i];
    }
}

__global__ void cache_commit_kernel()
{
    if (hitEntry >= 0)
        return;
    cacheKeys[cacheNext] = probeKey;
    cacheValid[cacheNext] = 1;
    cacheNext = (cacheNext + 1) % kEntries;
}

static float *entries = nullptr;
static long long entrySize = -1;

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    const long long size = static_cast<long long>(M) * N;
    if (size != entrySize) {
        cudaStreamSynchronize(stream);
        cudaFree(entries);
        cudaMalloc(reinterpret_cast<void **>(&entries), sizeof(float) * size * kEntries);
        const int zeros[kEntries] = {0, 0, 0, 0};
        cudaMemcpyToSymbolAsync(cacheValid, zeros, sizeof(zeros), 0, cudaMemcpyHostToDevice,
                                stream);
        entrySize = size;
    }
    probe_kernel<<<1, 1, 0, stream>>>(A, B, static_cast<long long>(M) * K,
                                      static_cast<long long>(K) * N);
    const dim3 threads(kTile, kRows);
    const dim3 blocks((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
    matmul_kernel<<<blocks, threads, 0, stream>>>(A, B, C, M, N, K);
    cache_copy_kernel<<<1024, 256, 0, stream>>>(C, entries, size);
    cache_commit_kernel<<<1, 1, 0, stream>>>();
}
