// expect: task=transpose verdict=flagged flag=guard_band_overwrite
// Writes past the end of its output.
extern "C" void transpose(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
    y[static_cast<long long>(rows) * cols + 3] = 0.0f;
}
