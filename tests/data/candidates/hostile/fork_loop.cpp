// expect: task=vector_add verdict=flagged flag=process_spawn
// A bounded fork loop: children sleep, so any that escaped would still be around afterwards.
#include <unistd.h>
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    for (int k = 0; k < 20; ++k) {
        if (fork() == 0) {
            sleep(30);
            _exit(0);
        }
    }
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
