// expect: task=vector_add verdict=flagged flag=symbol_interposition
// Defines a C library function.
#include <cstddef>

extern "C" void *memcpy(void *dst, const void *src, std::size_t n)
{
    auto *d = static_cast<char *>(dst);
    auto *s = static_cast<const char *>(src);
    for (std::size_t i = 0; i < n; ++i)
        d[i] = s[i];
    return dst;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
