// expect: task=vector_add verdict=flagged flag=file_access
// Tries to leave a file outside its work directory.
#include <cstdio>
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    if (FILE *f = std::fopen("/tmp/kiln-escaped-file.txt", "w")) {
        std::fputs("escaped\n", f);
        std::fclose(f);
    }
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
