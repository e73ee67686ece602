// Library baseline for matmul on CUDA: cuBLAS SGEMM in full fp32 (no TF32). cuBLAS is
// column-major, so the row-major C = A·B is computed as the column-major C^T = B^T·A^T.
// The handle is created once: creating it inside every timed call would measure setup, not GEMM.
#include <cublas_v2.h>
#include <cuda_runtime.h>

static cublasHandle_t baselineHandle()
{
    static cublasHandle_t handle = [] {
        cublasHandle_t created = nullptr;
        cublasCreate(&created);
        cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH);
        return created;
    }();
    return handle;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    cublasHandle_t handle = baselineHandle();
    cublasSetStream(handle, stream);
    const float alpha = 1.0f;
    const float beta = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
}
