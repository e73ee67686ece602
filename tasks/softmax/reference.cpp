// Reference for softmax on the CPU, row by row. Subtracting the row maximum keeps exp() finite
// for offset and heavy-tailed inputs; the denominator is accumulated in double.
#include <cmath>

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        float rowMax = in[0];
        for (int c = 1; c < cols; ++c)
            rowMax = std::fmax(rowMax, in[c]);
        double sum = 0.0;
        for (int c = 0; c < cols; ++c)
            sum += std::exp(static_cast<double>(in[c]) - rowMax);
        for (int c = 0; c < cols; ++c)
            out[c] = static_cast<float>(std::exp(static_cast<double>(in[c]) - rowMax) / sum);
    }
}
