// expect: task=vector_add verdict=pass
// Honest inline assembly: four lanes per SSE add, a scalar tail. Compute-only assembly stays
// advice (inline_asm), never blocking.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        asm volatile("movups (%0), %%xmm0\n\t"
                     "movups (%1), %%xmm1\n\t"
                     "addps %%xmm1, %%xmm0\n\t"
                     "movups %%xmm0, (%2)"
                     :
                     : "r"(a + i), "r"(b + i), "r"(c + i)
                     : "xmm0", "xmm1", "memory");
    }
    for (; i < n; ++i)
        c[i] = a[i] + b[i];
}
