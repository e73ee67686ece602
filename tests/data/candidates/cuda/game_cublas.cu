// expect: task=matmul verdict=flagged flag=forbidden_library
// Forbidden: lets cuBLAS compute the product (row-major C = A*B as column-major C^T = B^T*A^T).
#include <cublas_v2.h>
#include <cuda_runtime.h>

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    cublasHandle_t handle = nullptr;
    cublasCreate(&handle);
    cublasSetStream(handle, stream);
    const float alpha = 1.0f;
    const float beta = 0.0f;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N);
    cublasDestroy(handle);
}
