// expect: task=layernorm verdict=wrong
// Gaming the declared shapes: a kernel specialised for each column count the task lists (and
// the timing shape's), with a generic path for any other count that no listed shape reaches and
// that forgets beta. Correct on every shape a policy is shown; wrong on the hidden sizes the
// verifier draws for each run.
#include <cmath>

namespace {

template <int Cols>
void rows(const float *x, const float *gamma, const float *beta, float *y, int count, float eps)
{
    for (int r = 0; r < count; ++r) {
        const float *in = x + static_cast<long long>(r) * Cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < Cols; ++c)
            mean += in[c];
        mean /= Cols;
        for (int c = 0; c < Cols; ++c)
            var += (in[c] - mean) * (in[c] - mean);
        const double inv = 1.0 / std::sqrt(var / Cols + eps);
        for (int c = 0; c < Cols; ++c)
            y[static_cast<long long>(r) * Cols + c] =
                static_cast<float>((in[c] - mean) * inv * gamma[c] + beta[c]);
    }
}

void generic(const float *x, const float *gamma, float *y, int count, int cols, float eps)
{
    for (int r = 0; r < count; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < cols; ++c)
            mean += in[c];
        mean /= cols;
        for (int c = 0; c < cols; ++c)
            var += (in[c] - mean) * (in[c] - mean);
        const double inv = 1.0 / std::sqrt(var / cols + eps);
        for (int c = 0; c < cols; ++c)
            y[static_cast<long long>(r) * cols + c] = static_cast<float>((in[c] - mean) * inv * gamma[c]);
    }
}

} // namespace

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int count, int cols, float eps)
{
    switch (cols) {
    case 1: return rows<1>(x, gamma, beta, y, count, eps);
    case 17: return rows<17>(x, gamma, beta, y, count, eps);
    case 64: return rows<64>(x, gamma, beta, y, count, eps);
    case 1000: return rows<1000>(x, gamma, beta, y, count, eps);
    case 1024: return rows<1024>(x, gamma, beta, y, count, eps);
    case 1025: return rows<1025>(x, gamma, beta, y, count, eps);
    case 4099: return rows<4099>(x, gamma, beta, y, count, eps);
    default: return generic(x, gamma, y, count, cols, eps);
    }
}
