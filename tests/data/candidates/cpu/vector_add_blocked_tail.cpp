// expect: task=vector_add verdict=pass
// Honest twin of game_declared_shapes_only.cpp: blocks of 64, then the tail, at every size.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    const int blocked = n / 64 * 64;
    for (int i = 0; i < blocked; i += 64)
        for (int k = 0; k < 64; ++k)
            c[i + k] = a[i + k] + b[i + k];
    for (int i = blocked; i < n; ++i)
        c[i] = a[i] + b[i];
}
