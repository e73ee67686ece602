// expect: task=matmul verdict=flagged flag=precision_downgrade
// Computes in half precision in an fp32 task: products and sums in __half.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void matmul_half_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    __half sum = __float2half(0.0f);
    for (int k = 0; k < K; ++k) {
        const __half a = __float2half(A[static_cast<long long>(i) * K + k]);
        const __half b = __float2half(B[static_cast<long long>(k) * N + j]);
        sum = __hfma(a, b, sum);
    }
    C[static_cast<long long>(i) * N + j] = __half2float(sum);
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    const dim3 threads(32, 8);
    const dim3 blocks((N + 31) / 32, (M + 7) / 8);
    matmul_half_kernel<<<blocks, threads, 0, stream>>>(A, B, C, M, N, K);
}
