#pragma once

#include "core/backend.h"

#include <QString>
#include <optional>

namespace kiln {

// --backend auto|cpu|cuda: auto is CUDA when a GPU is usable, else CPU; cuda where no GPU is
// usable is an error that says why (no CUDA build, no driver, no device, the device's error).
class BackendChoice
{
public:
    static std::optional<Backend> resolve(const QString &text, QString *error);
};

} // namespace kiln
