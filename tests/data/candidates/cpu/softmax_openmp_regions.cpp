// expect: task=softmax verdict=pass
// Honest: three parallel regions one after another in every call (row maxima, exponentials and
// sums, scaling), and a nested region over the rows of each half of the matrix.
#include <cmath>
#include <omp.h>
#include <vector>

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    std::vector<float> maxima(rows), sums(rows);
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float m = -INFINITY;
        for (int c = 0; c < cols; ++c)
            m = in[c] > m ? in[c] : m;
        maxima[r] = m;
    }
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float *in = x + static_cast<long long>(r) * cols;
        float *out = y + static_cast<long long>(r) * cols;
        double s = 0.0;
        for (int c = 0; c < cols; ++c) {
            out[c] = std::exp(in[c] - maxima[r]);
            s += out[c];
        }
        sums[r] = static_cast<float>(s);
    }
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        const int half = omp_get_thread_num();
        const int first = half * rows / 2, last = (half + 1) * rows / 2;
#pragma omp parallel for num_threads(2) schedule(static)
        for (int r = first; r < last; ++r) {
            float *out = y + static_cast<long long>(r) * cols;
            const float inverse = 1.0f / sums[r];
            for (int c = 0; c < cols; ++c)
                out[c] *= inverse;
        }
    }
}
