// expect: task=reduce_sum verdict=flagged flag=cached_result
// Gaming: computes once per size, then answers from static state.
static int lastN = -1;
static float lastSum = 0.0f;

extern "C" void reduce_sum(const float *x, float *out, int n)
{
    if (n != lastN) {
        double s = 0.0;
        for (int i = 0; i < n; ++i)
            s += x[i];
        lastSum = static_cast<float>(s);
        lastN = n;
    }
    out[0] = lastSum;
}
