// expect: task=vector_add verdict=flagged flag=raw_system_calls
// Gaming: a system call straight from inline assembly (getpid here), invisible to symbol screens.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    long result;
    asm volatile("syscall" : "=a"(result) : "a"(39L) : "rcx", "r11", "memory");
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
