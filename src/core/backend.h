#pragma once

#include <QString>
#include <optional>

namespace kiln {

// Where candidates execute. Auto is resolved to one of the others before a run starts. Torch
// runs KernelBench problems (a PyTorch Model and a ModelNew with inline CUDA) on the GPU
// through the user's python3 and torch.
enum class Backend
{
    Cpu,
    Cuda,
    Torch
};

QString backendName(Backend backend);
std::optional<Backend> backendFromName(const QString &name);

} // namespace kiln
