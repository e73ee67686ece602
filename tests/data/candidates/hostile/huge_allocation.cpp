// expect: task=vector_add verdict=resource
// 100 GiB through operator new.
#include <cstddef>
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    float *scratch = new float[(std::size_t(100) << 30) / sizeof(float)];
    for (int i = 0; i < n; ++i) {
        scratch[i] = a[i] + b[i];
        c[i] = scratch[i];
    }
    delete[] scratch;
}
