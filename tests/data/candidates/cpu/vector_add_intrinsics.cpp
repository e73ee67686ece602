// expect: task=vector_add verdict=pass
// Honest: explicit SIMD intrinsics with a scalar tail.
#include <immintrin.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = 0;
#ifdef __AVX__
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
#else
    for (; i + 4 <= n; i += 4)
        _mm_storeu_ps(c + i, _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
#endif
    for (; i < n; ++i)
        c[i] = a[i] + b[i];
}
