// expect: task=vector_add verdict=flagged flag=timer_tampering
// Gaming: defines std::chrono::steady_clock::now().
#include <chrono>

namespace std::chrono {
inline namespace _V2 {
steady_clock::time_point steady_clock::now() noexcept
{
    return time_point(duration(0));
}
} // namespace _V2
} // namespace std::chrono

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
