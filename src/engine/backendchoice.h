#pragma once

#include "core/backend.h"

#include <QString>
#include <optional>

namespace kiln {

// --backend auto|cpu|cuda|pytorch: auto is CUDA when a GPU is usable, else CPU; cuda where no
// GPU is usable is an error that says why (no CUDA build, no driver, no device, the device's
// error). KernelBench problems run on the pytorch backend only (auto means pytorch for them),
// and pytorch runs nothing else.
class BackendChoice
{
public:
    static std::optional<Backend> resolve(const QString &text, QString *error,
                                          bool kernelBench = false);
};

} // namespace kiln
