// expect: task=vector_add verdict=wrong
// An honest bug: the last element is never written.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i + 1 < n; ++i)
        c[i] = a[i] + b[i];
}
