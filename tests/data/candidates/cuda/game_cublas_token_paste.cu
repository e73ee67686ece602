// expect: task=matmul verdict=flagged flag=forbidden_library
// Forbidden, hidden: no cuBLAS header; the prototypes are declared by hand and every name is
// pasted together by a macro, so the raw text never spells "cublas".
#include <cuda_runtime.h>

#define PASTE(a, b) a##b
#define JOIN(a, b) PASTE(a, b)
#define LIB(name) JOIN(JOIN(cub, las), name)

extern "C" int LIB(Create_v2)(void **handle);
extern "C" int LIB(SetStream_v2)(void *handle, cudaStream_t stream);
extern "C" int LIB(Destroy_v2)(void *handle);
extern "C" int LIB(Sgemm_v2)(void *handle, int transa, int transb, int m, int n, int k,
                             const float *alpha, const float *A, int lda, const float *B, int ldb,
                             const float *beta, float *C, int ldc);

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K,
                       cudaStream_t stream)
{
    void *handle = nullptr;
    LIB(Create_v2)(&handle);
    LIB(SetStream_v2)(handle, stream);
    const float alpha = 1.0f;
    const float beta = 0.0f;
    LIB(Sgemm_v2)(handle, 0, 0, N, M, K, &alpha, B, N, A, K, &beta, C, N);
    LIB(Destroy_v2)(handle);
}
