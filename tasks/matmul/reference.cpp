// Reference for matmul on the CPU: C = A·B, row-major, A is MxK, B is KxN. One dot product per
// output element, accumulated in double.
extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            double sum = 0.0;
            for (int k = 0; k < K; ++k)
                sum += static_cast<double>(A[static_cast<long long>(i) * K + k]) *
                       B[static_cast<long long>(k) * N + j];
            C[static_cast<long long>(i) * N + j] = static_cast<float>(sum);
        }
    }
}
