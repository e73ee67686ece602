// Reference for matmul on CUDA: one thread per output element, a plain dot product over K.
// Threads of a warp share a row of A and read consecutive columns of B (coalesced).
#include <cuda_runtime.h>

__global__ void matmul_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += A[static_cast<long long>(i) * K + k] * B[static_cast<long long>(k) * N + j];
    C[static_cast<long long>(i) * N + j] = sum;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    const dim3 threads(32, 8);
    const dim3 blocks((N + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y);
    matmul_kernel<<<blocks, threads, 0, stream>>>(A, B, C, M, N, K);
}
