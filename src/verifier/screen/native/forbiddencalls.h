#pragma once

#include <QString>

namespace kiln {

// The functions a kernel has no business reaching, each with the flag it raises: whether the
// candidate calls one, names it without calling it (an alias, a table of pointers), spells it
// in a string (dlsym, an asm label, weakref), imports it or reaches it under one of the C
// library's other names (__mprotect, __libc_dlsym, __write_nocancel, __builtin_exit).
class ForbiddenCalls
{
public:
    // The flag of a function name or an imported symbol; empty for a name that is no concern.
    static QString flagOf(const QString &name);

    // Clock functions (clock_gettime, gettimeofday, std::chrono's now() ...) as C names or
    // symbols: defining one replaces the harness's clock, taking its address finds it.
    static bool isTimerFunction(const QString &name);
};

} // namespace kiln
