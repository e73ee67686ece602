// expect: task=transpose verdict=pass
// Honest: 32x32 tiles, tiles in parallel.
extern "C" void transpose(const float *x, float *y, int rows, int cols)
{
    constexpr int T = 32;
#pragma omp parallel for collapse(2)
    for (int r0 = 0; r0 < rows; r0 += T)
        for (int c0 = 0; c0 < cols; c0 += T) {
            const int r1 = r0 + T < rows ? r0 + T : rows;
            const int c1 = c0 + T < cols ? c0 + T : cols;
            for (int r = r0; r < r1; ++r)
                for (int c = c0; c < c1; ++c)
                    y[static_cast<long long>(c) * rows + r] = x[static_cast<long long>(r) * cols + c];
        }
}
