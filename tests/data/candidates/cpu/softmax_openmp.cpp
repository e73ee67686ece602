// expect: task=softmax verdict=pass
// Honest: rows in parallel, float exponentials kept in the output, one division per row.
#include <cmath>

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        float m = in[0];
        for (int c = 1; c < cols; ++c)
            m = in[c] > m ? in[c] : m;
        double sum = 0.0;
        for (int c = 0; c < cols; ++c) {
            out[c] = std::exp(in[c] - m);
            sum += out[c];
        }
        const float inverse = static_cast<float>(1.0 / sum);
        for (int c = 0; c < cols; ++c)
            out[c] *= inverse;
    }
}
