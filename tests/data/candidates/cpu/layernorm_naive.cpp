// expect: task=layernorm verdict=pass
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        double mean = 0.0;
        for (int c = 0; c < cols; ++c)
            mean += in[c];
        mean /= cols;
        double var = 0.0;
        for (int c = 0; c < cols; ++c)
            var += (in[c] - mean) * (in[c] - mean);
        var /= cols;
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int c = 0; c < cols; ++c)
            y[static_cast<long long>(r) * cols + c] =
                static_cast<float>((in[c] - mean) * inv * gamma[c] + beta[c]);
    }
}
