// expect: task=vector_add verdict=pass
// Honest: OpenMP threads and SIMD.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
#pragma omp parallel for simd schedule(static)
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
