// expect: task=reduce_sum verdict=pass
extern "C" void reduce_sum(const float *x, float *out, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += x[i];
    out[0] = static_cast<float>(sum);
}
