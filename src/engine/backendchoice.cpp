#include "engine/backendchoice.h"

#include "verifier/harness/cudadevices.h"

namespace kiln {

std::optional<Backend> BackendChoice::resolve(const QString &text, QString *error, bool kernelBench)
{
    const bool known = text == QLatin1String("auto") || text == QLatin1String("cpu") ||
                       text == QLatin1String("cuda") || text == QLatin1String("pytorch");
    if (!known) {
        *error = QStringLiteral("--backend must be auto, cpu, cuda or pytorch, not '%1'").arg(text);
        return std::nullopt;
    }
    if (kernelBench) {
        if (text == QLatin1String("auto") || text == QLatin1String("pytorch"))
            return Backend::Torch;
        *error = QStringLiteral("KernelBench problems run on the pytorch backend "
                                "(--backend pytorch or auto), not %1")
                     .arg(text);
        return std::nullopt;
    }
    if (text == QLatin1String("pytorch")) {
        *error = QStringLiteral("the pytorch backend runs KernelBench problems only (import them "
                                "with kiln-cli import-kernelbench)");
        return std::nullopt;
    }
    if (text == QLatin1String("cpu"))
        return Backend::Cpu;
    const CudaAvailability gpu = CudaDevices::probe();
    if (gpu.usable)
        return Backend::Cuda;
    if (text == QLatin1String("auto"))
        return Backend::Cpu;
    *error = QStringLiteral("the CUDA backend is not usable here: %1").arg(gpu.reason);
    return std::nullopt;
}

} // namespace kiln
