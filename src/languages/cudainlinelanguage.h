#pragma once

#include "languages/kernellanguage.h"

namespace kiln {

// CUDA C++ built by torch.utils.cpp_extension.load_inline when the module is imported
// (KernelBench's own convention): the kernels are the __global__ functions of its source
// strings, which the CUDA screen reads as well.
class CudaInlineLanguage : public KernelLanguage
{
public:
    QString id() const override { return QStringLiteral("cuda"); }
    QString displayName() const override { return QStringLiteral("inline CUDA"); }
    Build build() const override { return Build::AtImport; }
    bool writtenIn(const QString &source) const override;
    QStringList kernelNames(const QString &source) const override;
    QString promptTemplate() const override { return QStringLiteral("backend_pytorch"); }
};

} // namespace kiln
