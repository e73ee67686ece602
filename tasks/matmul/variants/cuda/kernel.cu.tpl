{{! matmul, CUDA: C = A·B, row-major. Knobs: THREADS TM TN BK VEC A_LAYOUT STAGES }}
// matmul on CUDA: shared-memory tiles of {{BK}} along K, each of {{THREADS}} threads computes a
// {{TM}}x{{TN}} register block; A is stored {{A_LAYOUT}} in shared memory, {{STAGES}} stage(s).
{{#if STAGES != 1}}
#include <cuda_runtime.h>
{{/if}}

constexpr int kThreads = {{THREADS}};
constexpr int kTx = 16;                   // threads along N
constexpr int kTy = kThreads / kTx;       // threads along M
constexpr int kTm = {{TM}};
constexpr int kTn = {{TN}};
constexpr int kBm = kTy * kTm;            // block tile rows
constexpr int kBn = kTx * kTn;            // block tile columns
constexpr int kBk = {{BK}};
constexpr int kStages = {{STAGES}};
constexpr int kStageFloats = kBm * kBk + kBk * kBn;

// Copies the A[row0.., k0..] and B[k0.., col0..] tiles into one shared-memory stage; zero-fills
// outside the matrices.
__device__ __forceinline__ void load_tiles(const float *A, const float *B, float *As, float *Bs,
                                           int M, int N, int K, int row0, int col0, int k0)
{
    const int tid = threadIdx.x;
{{#if VEC == 4}}
    if ((K & 3) == 0) {
        for (int idx = tid; idx < kBm * kBk / 4; idx += kThreads) {
            const int r = idx / (kBk / 4);
            const int c = (idx % (kBk / 4)) * 4;
            float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (row0 + r < M && k0 + c < K)
                v = *reinterpret_cast<const float4 *>(A + static_cast<long long>(row0 + r) * K + k0 + c);
{{#if A_LAYOUT == transposed}}
            As[(c + 0) * kBm + r] = v.x;
            As[(c + 1) * kBm + r] = v.y;
            As[(c + 2) * kBm + r] = v.z;
            As[(c + 3) * kBm + r] = v.w;
{{else}}
            *reinterpret_cast<float4 *>(As + r * kBk + c) = v;
{{/if}}
        }
    } else
{{/if}}
    {
        for (int idx = tid; idx < kBm * kBk; idx += kThreads) {
            const int r = idx / kBk;
            const int c = idx % kBk;
            const float v = (row0 + r < M && k0 + c < K) ? A[static_cast<long long>(row0 + r) * K + k0 + c] : 0.0f;
{{#if A_LAYOUT == transposed}}
            As[c * kBm + r] = v;
{{else}}
            As[r * kBk + c] = v;
{{/if}}
        }
    }
{{#if VEC == 4}}
    if ((N & 3) == 0) {
        for (int idx = tid; idx < kBk * kBn / 4; idx += kThreads) {
            const int r = idx / (kBn / 4);
            const int c = (idx % (kBn / 4)) * 4;
            float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (k0 + r < K && col0 + c < N)
                v = *reinterpret_cast<const float4 *>(B + static_cast<long long>(k0 + r) * N + col0 + c);
            *reinterpret_cast<float4 *>(Bs + r * kBn + c) = v;
        }
    } else
{{/if}}
    {
        for (int idx = tid; idx < kBk * kBn; idx += kThreads) {
            const int r = idx / kBn;
            const int c = idx % kBn;
            Bs[r * kBn + c] = (k0 + r < K && col0 + c < N) ? B[static_cast<long long>(k0 + r) * N + col0 + c] : 0.0f;
        }
    }
}

{{#if STAGES == 1}}
// kiln-launch: grid=((N + 16 * {{TN}} - 1) / (16 * {{TN}}), (M + {{THREADS}} / 16 * {{TM}} - 1) / ({{THREADS}} / 16 * {{TM}})) block=({{THREADS}}) shared=(4 * ({{THREADS}} / 16 * {{TM}} * {{BK}} + {{BK}} * 16 * {{TN}}))
extern "C" __global__ void __launch_bounds__(kThreads)
    matmul(const float *A, const float *B, float *C, int M, int N, int K)
{{else}}
__global__ void __launch_bounds__(kThreads)
    matmul_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{{/if}}
{
    extern __shared__ __align__(16) float smem[];
    const int tx = threadIdx.x % kTx;
    const int ty = threadIdx.x / kTx;
    const int row0 = blockIdx.y * kBm;
    const int col0 = blockIdx.x * kBn;
    float acc[kTm][kTn];
#pragma unroll
    for (int i = 0; i < kTm; ++i)
#pragma unroll
        for (int j = 0; j < kTn; ++j)
            acc[i][j] = 0.0f;

    const int tiles = (K + kBk - 1) / kBk;
{{#if STAGES == 2}}
    // Two stages: the next tile is copied while this one is multiplied, one barrier per tile.
    load_tiles(A, B, smem, smem + kBm * kBk, M, N, K, row0, col0, 0);
    __syncthreads();
{{/if}}
    for (int tile = 0; tile < tiles; ++tile) {
{{#if STAGES == 2}}
        float *As = smem + (tile & 1) * kStageFloats;
        float *Bs = As + kBm * kBk;
        if (tile + 1 < tiles) {
            float *nextAs = smem + ((tile + 1) & 1) * kStageFloats;
            load_tiles(A, B, nextAs, nextAs + kBm * kBk, M, N, K, row0, col0, (tile + 1) * kBk);
        }
{{else}}
        float *As = smem;
        float *Bs = smem + kBm * kBk;
        load_tiles(A, B, As, Bs, M, N, K, row0, col0, tile * kBk);
        __syncthreads();
{{/if}}
#pragma unroll
        for (int k = 0; k < kBk; ++k) {
            float a[kTm];
            float b[kTn];
{{#if A_LAYOUT == transposed && VEC == 4 && TM >= 4}}
#pragma unroll
            for (int i = 0; i < kTm; i += 4) {
                const float4 v = *reinterpret_cast<const float4 *>(As + k * kBm + ty * kTm + i);
                a[i] = v.x;
                a[i + 1] = v.y;
                a[i + 2] = v.z;
                a[i + 3] = v.w;
            }
{{else}}
#pragma unroll
            for (int i = 0; i < kTm; ++i)
{{#if A_LAYOUT == transposed}}
                a[i] = As[k * kBm + ty * kTm + i];
{{else}}
                a[i] = As[(ty * kTm + i) * kBk + k];
{{/if}}
{{/if}}
{{#if VEC == 4 && TN >= 4}}
#pragma unroll
            for (int j = 0; j < kTn; j += 4) {
                const float4 v = *reinterpret_cast<const float4 *>(Bs + k * kBn + tx * kTn + j);
                b[j] = v.x;
                b[j + 1] = v.y;
                b[j + 2] = v.z;
                b[j + 3] = v.w;
            }
{{else}}
#pragma unroll
            for (int j = 0; j < kTn; ++j)
                b[j] = Bs[k * kBn + tx * kTn + j];
{{/if}}
#pragma unroll
            for (int i = 0; i < kTm; ++i)
#pragma unroll
                for (int j = 0; j < kTn; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < kTm; ++i) {
        const int r = row0 + ty * kTm + i;
        if (r >= M)
            continue;
        float *out = C + static_cast<long long>(r) * N;
#pragma unroll
        for (int j = 0; j < kTn; ++j) {
            const int c = col0 + tx * kTn + j;
            if (c < N)
                out[c] = acc[i][j];
        }
    }
}

{{#if STAGES != 1}}
extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    const int smemBytes = static_cast<int>(sizeof(float)) * kStageFloats * kStages;
    if (smemBytes > 48 * 1024)
        cudaFuncSetAttribute(matmul_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes);
    const dim3 grid((N + kBn - 1) / kBn, (M + kBm - 1) / kBm);
    matmul_kernel<<<grid, kThreads, smemBytes, stream>>>(A, B, C, M, N, K);
}
{{/if}}
