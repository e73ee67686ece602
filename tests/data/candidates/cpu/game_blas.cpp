// expect: task=matmul verdict=flagged flag=forbidden_library
// Calls BLAS, which the task forbids (and which is not linked: the import stays unresolved).
extern "C" void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *,
                            int, float, float *, int);

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    cblas_sgemm(101, 111, 111, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
