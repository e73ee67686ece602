{{! vector_add, CPU: c[i] = a[i] + b[i]. Knobs: PARALLEL SCHEDULE CHUNK SIMD UNROLL RESTRICT PREFETCH }}
// vector_add for the CPU: c[i] = a[i] + b[i].
{{#if PARALLEL == omp}}
#include <omp.h>
{{/if}}

extern "C" void vector_add(const float *{{#if RESTRICT == on}}__restrict__ {{/if}}a,
                           const float *{{#if RESTRICT == on}}__restrict__ {{/if}}b,
                           float *{{#if RESTRICT == on}}__restrict__ {{/if}}c, int n)
{
{{#if UNROLL == 1}}
{{#if PARALLEL == omp && SIMD == on}}
#pragma omp parallel for simd schedule({{SCHEDULE}}, {{CHUNK}})
{{#elif PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}}, {{CHUNK}})
{{#elif SIMD == on}}
#pragma omp simd
{{/if}}
    for (int i = 0; i < n; ++i) {
{{#if PREFETCH > 0}}
        __builtin_prefetch(a + i + {{PREFETCH}});
        __builtin_prefetch(b + i + {{PREFETCH}});
{{/if}}
        c[i] = a[i] + b[i];
    }
{{else}}
    // {{UNROLL}} elements per iteration, then a scalar tail.
    const int body = n - n % {{UNROLL}};
{{#if PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}}, {{CHUNK}})
{{/if}}
    for (int i = 0; i < body; i += {{UNROLL}}) {
{{#if PREFETCH > 0}}
        __builtin_prefetch(a + i + {{PREFETCH}});
        __builtin_prefetch(b + i + {{PREFETCH}});
{{/if}}
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
        for (int u = 0; u < {{UNROLL}}; ++u)
            c[i + u] = a[i + u] + b[i + u];
    }
    for (int i = body; i < n; ++i)
        c[i] = a[i] + b[i];
{{/if}}
}
