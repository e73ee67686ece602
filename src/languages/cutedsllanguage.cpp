#include "languages/cutedsllanguage.h"

namespace kiln {

bool CuteDslLanguage::writtenIn(const QString &source) const
{
    return importsModule(source, QStringLiteral("cutlass"));
}

QStringList CuteDslLanguage::kernelNames(const QString &source) const
{
    return decoratedFunctions(source, QStringLiteral("(\\w+\\.)?kernel"));
}

bool CuteDslLanguage::ownsTraceKernel(const QString &traceName, const QStringList &kernels) const
{
    for (const QString &kernel : kernels) {
        if (traceName == kernel || (traceName.startsWith(QStringLiteral("kernel_cutlass_")) &&
                                    traceName.contains(QLatin1Char('_') + kernel)))
            return true;
    }
    return false;
}

QList<QPair<QString, QString>> CuteDslLanguage::reducedDtypes() const
{
    return {{QStringLiteral("Float16"), QStringLiteral("half")},
            {QStringLiteral("BFloat16"), QStringLiteral("bfloat16")},
            {QStringLiteral("TFloat32"), QStringLiteral("tf32")},
            {QStringLiteral("Float8E4M3FN"), QStringLiteral("fp8")},
            {QStringLiteral("Float8E5M2"), QStringLiteral("fp8")},
            {QStringLiteral("Int8"), QStringLiteral("int8")}};
}

} // namespace kiln
