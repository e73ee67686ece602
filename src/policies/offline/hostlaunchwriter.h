#pragma once

#include "tasks/task.h"

#include <QString>

namespace kiln {

// A device-only CUDA candidate (tasks/launchgeometry.h) rewritten the way a model adds host code
// to one: its kernel renamed and no longer the entry, the kiln-launch line gone, and a host entry
// that launches the kernel on the given stream with the declared geometry. The defect injector
// does this before it wraps an entry in host-side gaming (a side stream, a library call).
class HostLaunchWriter
{
public:
    // False, the source unchanged, when it is not in the device-only form or its launch names a
    // size that is not a parameter of the entry.
    static bool addHostEntry(QString *source, const Task &task);

private:
    // An expression of the launch in C++, evaluated as the harness does (real arithmetic,
    // rounded down): where it divides, sizes and numbers as doubles.
    static QString inCpp(const QString &expression);
};

} // namespace kiln
