// expect: task=softmax verdict=wrong
// Gaming: computes honestly for the first calls (where a harness checks), then writes a cheap
// guess (every row uniform) once it believes it is being timed. The switch comes after the
// correctness calls (80: 6 shapes x 4 seeds on visible inputs, the same and 4 drawn shapes on
// hidden ones, and each of the 16 shapes' first call once more under the other poison) but
// within the fewest the verifier makes in all (80 + 2 warm-up + 5 timed), so it always happens
// while the verifier is watching.
#include <cmath>

static int calls = 0;

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    if (++calls > 82) {
        for (long long i = 0; i < (long long)rows * cols; ++i)
            y[i] = 1.0f / cols;
        return;
    }
    for (int r = 0; r < rows; ++r) {
        const float *in = x + (long long)r * cols;
        float *out = y + (long long)r * cols;
        float m = -INFINITY;
        for (int c = 0; c < cols; ++c)
            m = in[c] > m ? in[c] : m;
        double s = 0.0;
        for (int c = 0; c < cols; ++c)
            s += (out[c] = std::exp(in[c] - m));
        for (int c = 0; c < cols; ++c)
            out[c] = static_cast<float>(out[c] / s);
    }
}
