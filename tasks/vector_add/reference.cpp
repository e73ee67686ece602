// Reference for vector_add on the CPU: defines the expected output and the speedup baseline.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
