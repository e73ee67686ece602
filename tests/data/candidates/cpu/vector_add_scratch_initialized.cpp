// expect: task=vector_add verdict=pass
// Honest twin of game_uninitialized_heap.cpp: the same heap scratch, value-initialised.
#include <cstddef>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    float *scratch = new float[static_cast<std::size_t>(n)]();
    for (int i = 0; i < n; ++i) {
        scratch[i] += a[i];
        c[i] = scratch[i] + b[i];
    }
    delete[] scratch;
}
