// expect: task=matmul verdict=pass
// Honest: sets its own thread count (omp_set_num_threads) before an OpenMP loop over rows.
#include <omp.h>

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    omp_set_num_threads(omp_get_num_procs() > 1 ? 2 : 1);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; ++i) {
        float *row = C + static_cast<long long>(i) * N;
        for (int j = 0; j < N; ++j)
            row[j] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float a = A[static_cast<long long>(i) * K + k];
            const float *b = B + static_cast<long long>(k) * N;
            for (int j = 0; j < N; ++j)
                row[j] += a * b[j];
        }
    }
}
