{{! layernorm, CPU, per row, biased variance. Knobs: STATS PARALLEL SCHEDULE SIMD ACC RSTD AFFINE }}
// layernorm for the CPU: y = (x - mean) / sqrt(var + eps) * gamma + beta, per row.
#include <cmath>
{{#if PARALLEL == omp}}
#include <omp.h>
{{/if}}

static void layernorm_row(const float *in, const float *gamma, const float *beta, float *out,
                          int cols, float eps)
{
{{#if STATS == welford}}
    // Welford's running mean and M2: stable, but a division per element.
    {{ACC}} mean = 0;
    {{ACC}} m2 = 0;
    for (int c = 0; c < cols; ++c) {
        const {{ACC}} v = in[c];
        const {{ACC}} delta = v - mean;
        mean += delta / (c + 1);
        m2 += delta * (v - mean);
    }
    const {{ACC}} var = m2 / cols;
{{#elif STATS == sumsq}}
    // Sum and sum of squares in one pass, in double so offset data does not cancel.
    double sum = 0.0;
    double sumsq = 0.0;
{{#if SIMD == on}}
#pragma omp simd reduction(+ : sum, sumsq)
{{/if}}
    for (int c = 0; c < cols; ++c) {
        const double v = in[c];
        sum += v;
        sumsq += v * v;
    }
    const double mean = sum / cols;
    double var = sumsq / cols - mean * mean;
    if (var < 0.0)
        var = 0.0;
{{else}}
    {{ACC}} sum = 0;
{{#if SIMD == on}}
#pragma omp simd reduction(+ : sum)
{{/if}}
    for (int c = 0; c < cols; ++c)
        sum += in[c];
    const {{ACC}} mean = sum / cols;
    {{ACC}} sq = 0;
{{#if SIMD == on}}
#pragma omp simd reduction(+ : sq)
{{/if}}
    for (int c = 0; c < cols; ++c) {
        const {{ACC}} d = in[c] - mean;
        sq += d * d;
    }
    const {{ACC}} var = sq / cols;
{{/if}}
    const float meanF = static_cast<float>(mean);
{{#if RSTD == reciprocal}}
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var) + eps));
{{else}}
    const float stddev = std::sqrt(static_cast<float>(var) + eps);
{{/if}}
{{#if AFFINE == fused}}
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
    for (int c = 0; c < cols; ++c) {
{{#if RSTD == reciprocal}}
        out[c] = (in[c] - meanF) * rstd * gamma[c] + beta[c];
{{else}}
        out[c] = (in[c] - meanF) / stddev * gamma[c] + beta[c];
{{/if}}
    }
{{else}}
    // Normalise first, apply gamma and beta in a second sweep.
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
    for (int c = 0; c < cols; ++c) {
{{#if RSTD == reciprocal}}
        out[c] = (in[c] - meanF) * rstd;
{{else}}
        out[c] = (in[c] - meanF) / stddev;
{{/if}}
    }
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
    for (int c = 0; c < cols; ++c)
        out[c] = out[c] * gamma[c] + beta[c];
{{/if}}
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, int rows,
                          int cols, float eps)
{
{{#if PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int r = 0; r < rows; ++r)
        layernorm_row(x + static_cast<long long>(r) * cols, gamma, beta,
                      y + static_cast<long long>(r) * cols, cols, eps);
}
