// Reference for layernorm on the CPU, row by row: two passes (mean, then the biased variance of
// the centred values) in double, so offset inputs lose no precision.
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        double mean = 0.0;
        for (int c = 0; c < cols; ++c)
            mean += in[c];
        mean /= cols;
        double variance = 0.0;
        for (int c = 0; c < cols; ++c)
            variance += (in[c] - mean) * (in[c] - mean);
        variance /= cols;
        const double inverseStd = 1.0 / std::sqrt(variance + eps);
        for (int c = 0; c < cols; ++c)
            out[c] = static_cast<float>((in[c] - mean) * inverseStd * gamma[c] + beta[c]);
    }
}
