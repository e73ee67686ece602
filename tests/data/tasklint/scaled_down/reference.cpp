// Reference of the lint test task scaled_down: outputs far below the absolute tolerance, and
// an input (w) it never reads.
extern "C" void scaled_down(const float *x, const float *w, float *y, int n)
{
    (void)w;
    for (int i = 0; i < n; ++i)
        y[i] = 1e-8f * x[i];
}
