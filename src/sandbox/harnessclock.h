#pragma once

// The clock the sandboxes time calls with, read with the system-call instruction itself: no
// function pointer (a GOT entry, glibc's vDSO pointer, a libc wrapper) that candidate code could
// find and redirect stands between the harness and the kernel's clock. It is only one side of
// the guard: the engine's own clock bounds every time a sandbox reports (EngineClockBound), since
// anything inside a process that runs candidate code is within the candidate's reach.

#include <cstdint>
#include <ctime>
#include <sys/syscall.h>

namespace kiln::sandbox {

inline std::int64_t harnessNowNs()
{
    timespec now{};
#if defined(__x86_64__)
    long result = 0;
    asm volatile("syscall"
                 : "=a"(result)
                 : "a"(long(SYS_clock_gettime)), "D"(long(CLOCK_MONOTONIC)), "S"(&now)
                 : "rcx", "r11", "memory");
    (void)result;
#elif defined(__aarch64__)
    register long number asm("x8") = SYS_clock_gettime;
    register long clock asm("x0") = CLOCK_MONOTONIC;
    register timespec *out asm("x1") = &now;
    asm volatile("svc 0" : "+r"(clock) : "r"(number), "r"(out) : "memory");
#else
    ::clock_gettime(CLOCK_MONOTONIC, &now);
#endif
    return std::int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

} // namespace kiln::sandbox
