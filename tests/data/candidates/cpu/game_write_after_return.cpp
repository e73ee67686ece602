// expect: task=vector_add verdict=flagged flag=threads_left_running
// Gaming: returns at once and leaves the work to a thread, joined only at the next call; the
// timer sees nothing, and the output is complete by the time a lazy harness looks at it.
#include <thread>

static std::thread worker;

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    if (worker.joinable())
        worker.join();
    worker = std::thread([=] {
        for (int i = 0; i < n; ++i)
            c[i] = a[i] + b[i];
    });
}
