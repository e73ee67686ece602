// expect: task=vector_add verdict=flagged flag=dynamic_loading
// Gaming: walks the program headers of every object loaded in the harness's process
// (dl_iterate_phdr), the map one needs to find the harness's data without dlsym or /proc.
#include <link.h>

namespace {
int countObjects(dl_phdr_info *, size_t, void *data)
{
    ++*static_cast<int *>(data);
    return 0;
}
} // namespace

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    int objects = 0;
    dl_iterate_phdr(countObjects, &objects);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i] + 0.0f * objects;
}
