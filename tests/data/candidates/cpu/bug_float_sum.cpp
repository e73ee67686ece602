// expect: task=layernorm verdict=wrong
// An honest bug: forgets beta.
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *, float *y, int rows,
                          int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
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
