#include "backend.h"

namespace kiln {

QString backendName(Backend backend)
{
    return backend == Backend::Cuda ? QStringLiteral("cuda") : QStringLiteral("cpu");
}

std::optional<Backend> backendFromName(const QString &name)
{
    if (name == QLatin1String("cpu"))
        return Backend::Cpu;
    if (name == QLatin1String("cuda"))
        return Backend::Cuda;
    return std::nullopt;
}

} // namespace kiln
