// expect: task=vector_add verdict=flagged flag=dynamic_loading
// Looks up a function at run time.
#include <dlfcn.h>
#include <cstring>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    auto copy = reinterpret_cast<void *(*)(void *, const void *, size_t)>(dlsym(RTLD_DEFAULT, "memcpy"));
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    (void)copy;
}
