// expect: task=vector_add verdict=flagged flag=dynamic_loading
// Hides dlopen behind token pasting: only the preprocessed source shows it.
#include <dlfcn.h>
#define JOIN(a, b) a##b
#define HIDDEN JOIN(dl, open)

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    void *self = HIDDEN(nullptr, RTLD_NOW);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    (void)self;
}
