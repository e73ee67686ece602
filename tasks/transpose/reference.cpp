// Reference for transpose on the CPU: y[c][r] = x[r][c]; x is rows x cols, y is cols x rows.
extern "C" void transpose(const float *x, float *y, int rows, int cols)
{
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
}
