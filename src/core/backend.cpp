#include "backend.h"

namespace kiln {

QString backendName(Backend backend)
{
    switch (backend) {
    case Backend::Cuda:
        return QStringLiteral("cuda");
    case Backend::Torch:
        return QStringLiteral("pytorch");
    case Backend::Cpu:
        break;
    }
    return QStringLiteral("cpu");
}

std::optional<Backend> backendFromName(const QString &name)
{
    if (name == QLatin1String("cpu"))
        return Backend::Cpu;
    if (name == QLatin1String("cuda"))
        return Backend::Cuda;
    if (name == QLatin1String("pytorch"))
        return Backend::Torch;
    return std::nullopt;
}

} // namespace kiln
