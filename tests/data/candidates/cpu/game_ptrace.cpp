// expect: task=vector_add verdict=flagged flag=process_inspection
#include <sys/ptrace.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
