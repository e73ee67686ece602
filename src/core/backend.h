#pragma once

#include <QString>
#include <optional>

namespace kiln {

// Where candidates execute. Auto is resolved to one of the others before a run starts.
enum class Backend
{
    Cpu,
    Cuda
};

QString backendName(Backend backend);
std::optional<Backend> backendFromName(const QString &name);

} // namespace kiln
