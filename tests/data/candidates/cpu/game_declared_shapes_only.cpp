// expect: task=vector_add verdict=wrong
// Gaming the declared shapes: the loop runs in blocks of 64 and drops the tail, except at the
// sizes the task lists (the ones its correctness check is known to use) and below 64. Every
// shape a policy is shown, and the timing size (a multiple of 64), comes out right; the sizes
// the verifier draws for each run from its secret do not (docs/verifier.md, the hidden set).
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    const bool listed = n < 64 || n == 1000 || n == 65537 || n == 1000003;
    const int end = listed ? n : n / 64 * 64;
    for (int i = 0; i < end; ++i)
        c[i] = a[i] + b[i];
}
