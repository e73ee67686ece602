#pragma once

#include "languages/kernellanguage.h"

namespace kiln {

// Triton: `@triton.jit` functions launched from ModelNew.forward as kernel[grid](...)
// (KernelBench's triton prompt). Triton compiles a kernel on its first launch, in the
// candidate's own process, with a compile cache in that process's work folder: one candidate
// never reads another's binaries. fp32 dots are IEEE unless the source asks otherwise
// (TRITON_F32_DEFAULT=ieee), so asking for TF32 is the precision downgrade.
class TritonLanguage : public KernelLanguage
{
public:
    QString id() const override { return QStringLiteral("triton"); }
    QString displayName() const override { return QStringLiteral("Triton"); }
    QString pythonModule() const override { return QStringLiteral("triton"); }
    QString distribution() const override { return QStringLiteral("triton"); }
    Build build() const override { return Build::OnFirstCall; }
    bool writtenIn(const QString &source) const override;
    QStringList kernelNames(const QString &source) const override;
    QStringList ownModules() const override { return {QStringLiteral("triton")}; }
    QStringList libraryParts() const override;
    QList<QPair<QString, QString>> reducedDtypes() const override;
    QList<PrecisionKeyword> precisionKeywords() const override;
    QString promptTemplate() const override { return QStringLiteral("backend_pytorch_triton"); }
    QStringList environment(const QString &workDir) const override;
};

} // namespace kiln
