// expect: task=vector_add verdict=flagged flag=line_directive
// A line marker makes the preprocessor attribute what follows to a system header, where the
// screen does not look: the detached thread below would go unseen without the line_directive flag.
#include <thread>
# 1 "/usr/include/c++/12/thread" 3
static void touch(float *c, int n) { for (int i = 0; i < n; ++i) c[i] += 0.0f; }
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    std::thread(touch, c, 0).detach();
}
