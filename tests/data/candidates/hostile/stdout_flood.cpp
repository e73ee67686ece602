// expect: task=vector_add verdict=resource
// Writes megabytes to stdout.
#include <cstdio>
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int k = 0; k < 200000; ++k)
        std::printf("flooding the harness with output, line %d ........................\n", k);
    std::fflush(stdout);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
