// expect: task=layernorm verdict=pass
// Honest: the textbook kernel, one row at a time, two passes, sums in float. Its error on offset
// data (mean 50, unit spread) is about 1e-4 (docs/verifier.md, "Tolerances"), well within
// tolerance.
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps)
{
    for (int r = 0; r < rows; ++r) {
        const float *in = x + (long long)r * cols;
        float *out = y + (long long)r * cols;
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c)
            sum += in[c];
        const float mean = sum / cols;
        float sq = 0.0f;
        for (int c = 0; c < cols; ++c) {
            const float d = in[c] - mean;
            sq += d * d;
        }
        const float inv = 1.0f / std::sqrt(sq / cols + eps);
        for (int c = 0; c < cols; ++c)
            out[c] = (in[c] - mean) * inv * gamma[c] + beta[c];
    }
}
