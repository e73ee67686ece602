// expect: task=vector_add verdict=flagged flag=threads_detached
// Gaming: the work continues in a detached thread after the call returns (untimed).
#include <thread>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    std::thread([=] {
        for (int i = 0; i < n; ++i)
            c[i] = a[i] + b[i];
    }).detach();
}
