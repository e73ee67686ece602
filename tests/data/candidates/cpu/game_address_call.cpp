// expect: task=vector_add verdict=flagged flag=dynamic_loading
// Gaming: calls through a function pointer made from an integer. Here the integer is its own
// helper's address, masked and unmasked; the same cast reaches any address (a libc function
// found by scanning memory), and no name of what is called appears in the source.
#include <cstdint>

static float add(float x, float y)
{
    return x + y;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    const std::uintptr_t key = 0x5a5a5a5a;
    volatile std::uintptr_t hidden = reinterpret_cast<std::uintptr_t>(&add) ^ key;
    const auto op = reinterpret_cast<float (*)(float, float)>(hidden ^ key);
    for (int i = 0; i < n; ++i)
        c[i] = op(a[i], b[i]);
}
