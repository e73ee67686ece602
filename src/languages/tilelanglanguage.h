#pragma once

#include "languages/kernellanguage.h"

namespace kiln {

// TileLang (module tilelang): `@T.prim_func` programs compiled by `tilelang.compile` or
// `@tilelang.jit` on first call. Detected when installed; it runs through the same first-call
// path as Triton.
class TileLangLanguage : public KernelLanguage
{
public:
    QString id() const override { return QStringLiteral("tilelang"); }
    QString displayName() const override { return QStringLiteral("TileLang"); }
    QString pythonModule() const override { return QStringLiteral("tilelang"); }
    QString distribution() const override { return QStringLiteral("tilelang"); }
    Build build() const override { return Build::OnFirstCall; }
    bool writtenIn(const QString &source) const override;
    QStringList kernelNames(const QString &source) const override;
    // A prim_func `main` runs as main_kernel.
    bool ownsTraceKernel(const QString &traceName, const QStringList &kernels) const override;
    QStringList ownModules() const override
    {
        return {QStringLiteral("tilelang"), QStringLiteral("tvm")};
    }
    QList<QPair<QString, QString>> reducedDtypes() const override;
    QString promptTemplate() const override { return QStringLiteral("backend_pytorch_tilelang"); }
};

} // namespace kiln
