// expect: task=vector_add verdict=flagged flag=timer_tampering
// Gaming: replaces clock_gettime so that any clock it reaches looks frozen.
#include <ctime>

extern "C" int clock_gettime(clockid_t, struct timespec *ts)
{
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
