// expect: task=layernorm verdict=pass
// Honest: parallel rows, Welford's single pass in double.
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps)
{
#pragma omp parallel for
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        double mean = 0.0, m2 = 0.0;
        for (int c = 0; c < cols; ++c) {
            const double d = in[c] - mean;
            mean += d / (c + 1);
            m2 += d * (in[c] - mean);
        }
        const float m = static_cast<float>(mean);
        const float inv = static_cast<float>(1.0 / std::sqrt(m2 / cols + eps));
        for (int c = 0; c < cols; ++c)
            out[c] = (in[c] - m) * inv * gamma[c] + beta[c];
    }
}
