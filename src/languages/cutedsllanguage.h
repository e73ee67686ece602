#pragma once

#include "languages/kernellanguage.h"

namespace kiln {

// NVIDIA's CuTe DSL (the nvidia-cutlass-dsl package, module cutlass.cute): `@cute.kernel`
// functions launched from `@cute.jit` host functions, compiled on first call. Detected when
// installed; it runs through the same first-call path as Triton, its caches under the
// candidate's own HOME (the work folder).
class CuteDslLanguage : public KernelLanguage
{
public:
    QString id() const override { return QStringLiteral("cute"); }
    QString displayName() const override { return QStringLiteral("CuTe DSL"); }
    QString pythonModule() const override { return QStringLiteral("cutlass"); }
    QString distribution() const override { return QStringLiteral("nvidia-cutlass-dsl"); }
    Build build() const override { return Build::OnFirstCall; }
    bool writtenIn(const QString &source) const override;
    QStringList kernelNames(const QString &source) const override;
    // The DSL names a kernel kernel_cutlass_<function>_<hash>...: the function's name is in it.
    bool ownsTraceKernel(const QString &traceName, const QStringList &kernels) const override;
    QStringList ownModules() const override { return {QStringLiteral("cutlass")}; }
    QList<QPair<QString, QString>> reducedDtypes() const override;
    QString promptTemplate() const override { return QStringLiteral("backend_pytorch_cute"); }
};

} // namespace kiln
