{{! transpose, CPU: y[c][r] = x[r][c]. Knobs: TILE PARALLEL SCHEDULE ORDER SIMD UNROLL }}
// transpose for the CPU: y[c][r] = x[r][c].
{{#if PARALLEL != none}}
#include <omp.h>
{{/if}}

{{#if TILE != 0}}
// One {{TILE}}x{{TILE}} tile: both the rows read and the rows written stay in cache.
static void transpose_tile(const float *x, float *y, int rows, int cols, int r0, int r1, int c0,
                           int c1)
{
{{#if ORDER == read_major}}
    for (int r = r0; r < r1; ++r) {
        int c = c0;
{{#if UNROLL == 4}}
        for (; c + 4 <= c1; c += 4) {
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
            y[static_cast<long long>(c + 1) * rows + r] = x[static_cast<long long>(r) * cols + c + 1];
            y[static_cast<long long>(c + 2) * rows + r] = x[static_cast<long long>(r) * cols + c + 2];
            y[static_cast<long long>(c + 3) * rows + r] = x[static_cast<long long>(r) * cols + c + 3];
        }
{{/if}}
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
        for (int cc = c; cc < c1; ++cc)
            y[static_cast<long long>(cc) * rows + r] = x[static_cast<long long>(r) * cols + cc];
    }
{{else}}
    for (int c = c0; c < c1; ++c) {
        int r = r0;
{{#if UNROLL == 4}}
        for (; r + 4 <= r1; r += 4) {
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
            y[static_cast<long long>(c) * rows + r + 1] = x[static_cast<long long>(r + 1) * cols + c];
            y[static_cast<long long>(c) * rows + r + 2] = x[static_cast<long long>(r + 2) * cols + c];
            y[static_cast<long long>(c) * rows + r + 3] = x[static_cast<long long>(r + 3) * cols + c];
        }
{{/if}}
{{#if SIMD == on}}
#pragma omp simd
{{/if}}
        for (int rr = r; rr < r1; ++rr)
            y[static_cast<long long>(c) * rows + rr] = x[static_cast<long long>(rr) * cols + c];
    }
{{/if}}
}
{{/if}}

extern "C" void transpose(const float *x, float *y, int rows, int cols)
{
{{#if TILE == 0}}
{{#if ORDER == read_major}}
{{#if PARALLEL == omp_collapse}}
#pragma omp parallel for collapse(2) schedule({{SCHEDULE}})
{{#elif PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
{{else}}
{{#if PARALLEL == omp_collapse}}
#pragma omp parallel for collapse(2) schedule({{SCHEDULE}})
{{#elif PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int c = 0; c < cols; ++c)
        for (int r = 0; r < rows; ++r)
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
{{/if}}
{{else}}
{{#if PARALLEL == omp_collapse}}
#pragma omp parallel for collapse(2) schedule({{SCHEDULE}})
{{#elif PARALLEL == omp}}
#pragma omp parallel for schedule({{SCHEDULE}})
{{/if}}
    for (int r0 = 0; r0 < rows; r0 += {{TILE}})
        for (int c0 = 0; c0 < cols; c0 += {{TILE}}) {
            const int r1 = r0 + {{TILE}} < rows ? r0 + {{TILE}} : rows;
            const int c1 = c0 + {{TILE}} < cols ? c0 + {{TILE}} : cols;
            transpose_tile(x, y, rows, cols, r0, r1, c0, c1);
        }
{{/if}}
}
