// expect: task=vector_add verdict=flagged flag=raw_system_calls
// Gaming: a system call (getpid) written as the bytes of the instruction, so no mnemonic and
// no name a screen looks for appears anywhere.
extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    long result;
    asm volatile(".byte 0x0f, 0x05" : "=a"(result) : "a"(39L) : "rcx", "r11", "memory");
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
