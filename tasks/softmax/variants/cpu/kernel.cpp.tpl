{{! softmax, CPU, per row. Knobs: PASSES PARALLEL SCHEDULE SIMD ACC NORMALIZE EXP }}
// softmax for the CPU: y[r][c] = exp(x[r][c] - max_r) / sum_r, one row at a time.
#include <cmath>
{{#if PARALLEL == omp}}
#include <omp.h>
{{/if}}

static inline float softmax_exp(float v)
{
{{#if EXP == expf}}
    return expf(v);
{{else}}
    return static_cast<float>(std::exp(static_cast<double>(v)));
{{/if}}
}

static void softmax_row(const float *in, float *out, int cols)
{
{{#if PASSES == online}}
    // One pass keeps a running maximum and rescales the running sum when it grows.
    float m = -INFINITY;
    {{ACC}} s = 0;
    for (int c = 0; c < cols; ++c) {
        const float v = in[c];
        if (v > m) {
            s = s * softmax_exp(m - v) + 1;
            m = v;
        } else {
            s += softmax_exp(v - m);
        }
    }
{{else}}
    float m = -INFINITY;
{{#if SIMD == on}}
#pragma omp simd reduction(max : m)
{{/if}}
    for (int c = 0; c < cols; ++c)
        m = in[c] > m ? in[c] : m;
    {{ACC}} s = 0;
{{#if PASSES == two}}
    // Store the exponentials once, scale them afterwards.
{{#if SIMD == on}}
#pragma omp simd reduction(+ : s)
{{/if}}
    for (int c = 0; c < cols; ++c) {
        const float e = softmax_exp(in[c] - m);
        out[c] = e;
        s += e;
    }
{{else}}
{{#if SIMD == on}}
#pragma omp simd reduction(+ : s)
{{/if}}
    for (int c = 0; c < cols; ++c)
        s += softmax_exp(in[c] - m);
{{/if}}
{{/if}}
{{#if NORMALIZE == reciprocal}}
    const float inv = static_cast<float>(1.0 / static_cast<double>(s));
{{/if}}
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
    for (int c = 0; c < cols; ++c) {
{{#if PASSES == two}}
        const float e = out[c];
{{else}}
        const float e = softmax_exp(in[c] - m);
{{/if}}
{{#if NORMALIZE == reciprocal}}
        out[c] = e * inv;
{{else}}
        out[c] = static_cast<float>(e / s);
{{/if}}
    }
}

extern "C" void softmax(const float *x, float *y, int rows, int cols)
{
{{#if PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int r = 0; r < rows; ++r)
        softmax_row(x + static_cast<long long>(r) * cols, y + static_cast<long long>(r) * cols, cols);
}
