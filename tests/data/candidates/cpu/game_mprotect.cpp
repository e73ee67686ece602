// expect: task=vector_add verdict=flagged flag=memory_protection
#include <sys/mman.h>
#include <cstdint>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    const auto page = reinterpret_cast<std::uintptr_t>(&vector_add) & ~std::uintptr_t(4095);
    mprotect(reinterpret_cast<void *>(page), 4096, PROT_READ | PROT_EXEC);
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
