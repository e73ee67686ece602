{{! reduce_sum, CPU: out[0] = sum(x). Knobs: PARALLEL ACCUMULATORS SIMD ACC SCHEDULE CHUNK BLOCK }}
// reduce_sum for the CPU: out[0] = sum of x[0..n).
{{#if PARALLEL != none}}
#include <omp.h>
{{/if}}
{{#if PARALLEL == omp_partials}}
#include <cstddef>
#include <vector>
{{/if}}

// Sums x[begin, end) with {{ACCUMULATORS}} independent accumulator(s) in {{ACC}}.
static {{ACC}} sum_range(const float *x, long long begin, long long end)
{
{{#if ACCUMULATORS == 1}}
    {{ACC}} sum = 0;
{{#if SIMD == on}}
#pragma omp simd reduction(+ : sum)
{{/if}}
    for (long long i = begin; i < end; ++i)
        sum += x[i];
    return sum;
{{else}}
    {{ACC}} acc[{{ACCUMULATORS}}] = {};
    long long i = begin;
    for (; i + {{ACCUMULATORS}} <= end; i += {{ACCUMULATORS}}) {
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
        for (int u = 0; u < {{ACCUMULATORS}}; ++u)
            acc[u] += x[i + u];
    }
    for (; i < end; ++i)
        acc[0] += x[i];
    {{ACC}} sum = 0;
    for (int u = 0; u < {{ACCUMULATORS}}; ++u)
        sum += acc[u];
    return sum;
{{/if}}
}

{{#if BLOCK == 0}}
static {{ACC}} sum_blocked(const float *x, long long begin, long long end)
{
    return sum_range(x, begin, end);
}
{{else}}
// Blocks of {{BLOCK}} elements summed separately keep the rounding error small.
static {{ACC}} sum_blocked(const float *x, long long begin, long long end)
{
    {{ACC}} total = 0;
    for (long long b = begin; b < end; b += {{BLOCK}}) {
        const long long stop = b + {{BLOCK}} < end ? b + {{BLOCK}} : end;
        total += sum_range(x, b, stop);
    }
    return total;
}
{{/if}}

extern "C" void reduce_sum(const float *x, float *out, int n)
{
{{#if PARALLEL == none}}
    out[0] = static_cast<float>(sum_blocked(x, 0, n));
{{#elif PARALLEL == omp_reduction}}
    double total = 0.0;
    const long long chunks = (static_cast<long long>(n) + {{CHUNK}} - 1) / {{CHUNK}};
#pragma omp parallel for reduction(+ : total) schedule({{SCHEDULE}})
    for (long long chunk = 0; chunk < chunks; ++chunk) {
        const long long begin = chunk * {{CHUNK}};
        const long long end = begin + {{CHUNK}} < n ? begin + {{CHUNK}} : n;
        total += sum_blocked(x, begin, end);
    }
    out[0] = static_cast<float>(total);
{{else}}
    // One partial per thread, padded to a cache line so threads do not share lines.
    const int threads = omp_get_max_threads();
    std::vector<double> partial(static_cast<std::size_t>(threads) * 8, 0.0);
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const int count = omp_get_num_threads();
        const long long begin = static_cast<long long>(n) * t / count;
        const long long end = static_cast<long long>(n) * (t + 1) / count;
        partial[static_cast<std::size_t>(t) * 8] = sum_blocked(x, begin, end);
    }
    double total = 0.0;
    for (int t = 0; t < threads; ++t)
        total += partial[static_cast<std::size_t>(t) * 8];
    out[0] = static_cast<float>(total);
{{/if}}
}
