// expect: task=vector_add verdict=resource
// 100 GiB through malloc, used without checking for NULL.
#include <cstdlib>
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    float *scratch = static_cast<float *>(std::malloc(std::size_t(100) << 30));
    for (int i = 0; i < n; ++i) {
        scratch[i] = a[i] + b[i];
        c[i] = scratch[i];
    }
    std::free(scratch);
}
