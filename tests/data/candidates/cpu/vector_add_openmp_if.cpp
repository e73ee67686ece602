// expect: task=vector_add verdict=pass
// Honest: OpenMP only where it pays. The if clause runs small inputs on one thread and large ones
// in parallel, so the pool appears only at the first large call and then waits, idle.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
#pragma omp parallel for if (n > 32768) schedule(static)
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
