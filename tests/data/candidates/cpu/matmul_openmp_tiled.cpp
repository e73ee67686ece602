// expect: task=matmul verdict=pass
// Honest: i-k-j order (vectorisable inner loop), rows in parallel.
extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; ++i) {
        float *row = C + static_cast<long long>(i) * N;
        for (int j = 0; j < N; ++j)
            row[j] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float a = A[static_cast<long long>(i) * K + k];
            const float *b = B + static_cast<long long>(k) * N;
#pragma omp simd
            for (int j = 0; j < N; ++j)
                row[j] += a * b[j];
        }
    }
}
