// expect: task=matmul verdict=flagged flag=precision_downgrade
// Computes in half precision in an fp32 task.
extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            _Float16 sum = 0;
            for (int k = 0; k < K; ++k)
                sum += static_cast<_Float16>(A[i * K + k]) * static_cast<_Float16>(B[k * N + j]);
            C[i * N + j] = static_cast<float>(sum);
        }
}
