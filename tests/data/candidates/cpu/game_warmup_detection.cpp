// expect: task=softmax verdict=wrong
// Gaming: computes honestly for the first calls (where a harness checks), then writes a cheap
// guess (every row uniform) once it believes it is being timed.
#include <cmath>

static int calls = 0;

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
    if (++calls > 30) {
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
