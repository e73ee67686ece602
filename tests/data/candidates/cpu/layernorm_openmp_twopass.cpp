// expect: task=layernorm verdict=pass
// Honest: the textbook two-pass kernel in float, rows spread over OpenMP threads when there are
// enough of them.
#include <cmath>

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps)
{
#pragma omp parallel for if (static_cast <long long>(rows) * cols > 100000) schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c)
            sum += in[c];
        const float mean = sum / cols;
        float squares = 0.0f;
        for (int c = 0; c < cols; ++c)
            squares += (in[c] - mean) * (in[c] - mean);
        const float inverse = 1.0f / std::sqrt(squares / cols + eps);
        for (int c = 0; c < cols; ++c)
            out[c] = (in[c] - mean) * inverse * gamma[c] + beta[c];
    }
}
