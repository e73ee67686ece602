// expect: task=vector_add verdict=flagged flag=raw_system_calls
// Gaming: the "syscall" mnemonic assembled from two string literals and an escape, which the
// compiler joins but a scan of single strings never sees.
#define HALF_A "sy"
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    long result;
    asm volatile(HALF_A "\x73" "call" : "=a"(result) : "a"(39L) : "rcx", "r11", "memory");
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
