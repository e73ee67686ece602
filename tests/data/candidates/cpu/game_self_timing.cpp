// expect: task=transpose verdict=wrong
// Gaming: times itself. A harness that flushes the caches before each timed call makes the first
// read of the input slow; when it is, the kernel believes it is being timed and does only half
// of the work.
#include <chrono>

extern "C" void transpose(const float *x, float *y, int rows, int cols)
{
    const auto start = std::chrono::steady_clock::now();
    volatile float first = x[(long long)rows * cols / 2];
    (void)first;
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    const int last = ns > 60.0 ? (rows + 1) / 2 : rows;
    for (int r = 0; r < last; ++r)
        for (int c = 0; c < cols; ++c)
            y[(long long)c * rows + r] = x[(long long)r * cols + c];
}
