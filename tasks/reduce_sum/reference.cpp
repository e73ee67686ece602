// Reference for reduce_sum on the CPU: a double accumulator keeps the expected value far more
// accurate than the tolerance, whatever order a candidate sums in.
extern "C" void reduce_sum(const float *x, float *out, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += x[i];
    out[0] = static_cast<float>(sum);
}
