#pragma once

#include "tasks/task.h"

#include <QString>

namespace kiln {

// The C shim compiled next to the candidate: one fixed entry the sandbox can call for any
// task signature (pointers, ints and reals in separate arrays, in signature order).
class EntryShim
{
public:
    static constexpr const char *kSymbol = "kiln_entry_shim";
    static QString source(const Task &task);
    // The CUDA form: the same arrays plus the harness's stream, passed on as the entry's last
    // argument. Host code only (compiled by nvcc next to the candidate).
    static QString cudaSource(const Task &task);
};

} // namespace kiln
