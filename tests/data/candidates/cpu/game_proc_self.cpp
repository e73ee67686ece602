// expect: task=vector_add verdict=flagged flag=proc_access
// Reads the harness's memory map.
#include <cstdio>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    if (FILE *maps = std::fopen("/proc/self/maps", "r"))
        std::fclose(maps);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
