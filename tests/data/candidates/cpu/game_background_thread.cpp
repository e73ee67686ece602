// expect: task=vector_add verdict=flagged flag=threads_left_running
// Gaming without the word "detach": threads parked in a static vector keep running after
// every call returns.
#include <atomic>
#include <thread>
#include <vector>

static std::vector<std::thread> workers;

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    workers.emplace_back([] {
        volatile double x = 0;
        for (long i = 0; i < 400000000L; ++i)
            x = x + 1;
    });
}
