// expect: task=vector_add verdict=flagged flag=load_time_code
// Runs code at load time, before the harness calls anything.
static int primed = 0;
__attribute__((constructor)) static void prime()
{
    primed = 1;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i] * primed;
}
