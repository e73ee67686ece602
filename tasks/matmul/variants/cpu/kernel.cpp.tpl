{{! matmul, CPU: C = A·B, row-major. Knobs: ORDER TILE MR NR PARALLEL SCHEDULE SIMD }}
// matmul for the CPU: C[M][N] = A[M][K] · B[K][N], row-major.
{{#if PARALLEL == omp}}
#include <omp.h>
{{/if}}

// Adds the product of the A[i0:i1, k0:k1] and B[k0:k1, j0:j1] blocks into C.
static void matmul_block(const float *A, const float *B, float *C, int N, int K, int i0, int i1,
                         int j0, int j1, int k0, int k1)
{
{{#if MR == 1 && NR == 1}}
{{#if ORDER == ijk}}
    for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) {
            float sum = 0.0f;
            for (int k = k0; k < k1; ++k)
                sum += A[static_cast<long long>(i) * K + k] * B[static_cast<long long>(k) * N + j];
            C[static_cast<long long>(i) * N + j] += sum;
        }
{{else}}
    for (int i = i0; i < i1; ++i)
        for (int k = k0; k < k1; ++k) {
            const float a = A[static_cast<long long>(i) * K + k];
            const float *b = B + static_cast<long long>(k) * N;
            float *c = C + static_cast<long long>(i) * N;
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
            for (int j = j0; j < j1; ++j)
                c[j] += a * b[j];
        }
{{/if}}
{{else}}
    // {{MR}}x{{NR}} register block: the accumulators stay in registers across the k loop.
    for (int i = i0; i < i1; i += {{MR}})
        for (int j = j0; j < j1; j += {{NR}}) {
            if (i + {{MR}} <= i1 && j + {{NR}} <= j1) {
                float acc[{{MR}}][{{NR}}] = {};
                for (int k = k0; k < k1; ++k) {
                    const float *b = B + static_cast<long long>(k) * N + j;
                    for (int r = 0; r < {{MR}}; ++r) {
                        const float a = A[static_cast<long long>(i + r) * K + k];
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
                        for (int c = 0; c < {{NR}}; ++c)
                            acc[r][c] += a * b[c];
                    }
                }
                for (int r = 0; r < {{MR}}; ++r)
                    for (int c = 0; c < {{NR}}; ++c)
                        C[static_cast<long long>(i + r) * N + j + c] += acc[r][c];
            } else {
                // Edge of the block: plain dot products.
                const int iEnd = i + {{MR}} < i1 ? i + {{MR}} : i1;
                const int jEnd = j + {{NR}} < j1 ? j + {{NR}} : j1;
                for (int ii = i; ii < iEnd; ++ii)
                    for (int jj = j; jj < jEnd; ++jj) {
                        float sum = 0.0f;
                        for (int k = k0; k < k1; ++k)
                            sum += A[static_cast<long long>(ii) * K + k] *
                                   B[static_cast<long long>(k) * N + jj];
                        C[static_cast<long long>(ii) * N + jj] += sum;
                    }
            }
        }
{{/if}}
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K)
{
    const long long total = static_cast<long long>(M) * N;
{{#if PARALLEL == omp}}
#pragma omp parallel for schedule(static)
{{/if}}
    for (long long e = 0; e < total; ++e)
        C[e] = 0.0f;
{{#if TILE == 0}}
    // No cache blocking: panels of {{MR}} row(s) over the whole of K and N.
    const int tileM = {{MR}};
    const int tileN = N;
    const int tileK = K;
{{else}}
    // {{TILE}}x{{TILE}}x{{TILE}} cache blocks.
    const int tileM = {{TILE}};
    const int tileN = {{TILE}};
    const int tileK = {{TILE}};
{{/if}}
{{#if PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int i0 = 0; i0 < M; i0 += tileM) {
        const int i1 = i0 + tileM < M ? i0 + tileM : M;
        for (int k0 = 0; k0 < K; k0 += tileK) {
            const int k1 = k0 + tileK < K ? k0 + tileK : K;
            for (int j0 = 0; j0 < N; j0 += tileN) {
                const int j1 = j0 + tileN < N ? j0 + tileN : N;
                matmul_block(A, B, C, N, K, i0, i1, j0, j1, k0, k1);
            }
        }
    }
}
