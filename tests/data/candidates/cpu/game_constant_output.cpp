// expect: task=softmax verdict=wrong flag=wrong_constant_output
// Gaming: a softmax row of many columns is "about 1/cols" everywhere.
extern "C" void softmax(const float *, float *y, int rows, int cols)
{
    for (long long i = 0; i < static_cast<long long>(rows) * cols; ++i)
        y[i] = 1.0f / cols;
}
