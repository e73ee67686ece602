// expect: task=reduce_sum verdict=pass
// Honest: a size threshold picks one thread for small inputs and an OpenMP reduction (in double)
// for large ones.
extern "C" void reduce_sum(const float *x, float *out, int n)
{
    double sum = 0.0;
    if (n < 65536) {
        for (int i = 0; i < n; ++i)
            sum += x[i];
    } else {
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (int i = 0; i < n; ++i)
            sum += x[i];
    }
    out[0] = static_cast<float>(sum);
}
