#include "engine/backendchoice.h"

#include "verifier/cudadevices.h"

namespace kiln {

std::optional<Backend> BackendChoice::resolve(const QString &text, QString *error)
{
    if (text == QLatin1String("cpu"))
        return Backend::Cpu;
    if (text != QLatin1String("auto") && text != QLatin1String("cuda")) {
        *error = QStringLiteral("--backend must be auto, cpu or cuda, not '%1'").arg(text);
        return std::nullopt;
    }
    const CudaAvailability gpu = CudaDevices::probe();
    if (gpu.usable)
        return Backend::Cuda;
    if (text == QLatin1String("auto"))
        return Backend::Cpu;
    *error = QStringLiteral("the CUDA backend is not usable here: %1").arg(gpu.reason);
    return std::nullopt;
}

} // namespace kiln
