// expect: task=softmax verdict=pass
#include <cmath>

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        float m = in[0];
        for (int c = 1; c < cols; ++c)
            m = std::fmax(m, in[c]);
        double sum = 0.0;
        for (int c = 0; c < cols; ++c)
            sum += std::exp(static_cast<double>(in[c]) - m);
        for (int c = 0; c < cols; ++c)
            out[c] = static_cast<float>(std::exp(static_cast<double>(in[c]) - m) / sum);
    }
}
