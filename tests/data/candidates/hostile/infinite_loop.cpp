// expect: task=vector_add verdict=timeout
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    volatile bool forever = true;
    while (forever)
        for (int i = 0; i < n; ++i)
            c[i] = a[i] + b[i];
}
