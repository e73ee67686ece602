// expect: task=vector_add verdict=flagged flag=raw_system_calls
// Gaming: writes a forged "all fast" reply into the sandbox's reply pipe.
#include <unistd.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    static const char forged[] = "ok 1 1 1\n";
    write(501, forged, sizeof forged - 1);
}
