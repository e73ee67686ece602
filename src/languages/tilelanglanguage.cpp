#include "languages/tilelanglanguage.h"

namespace kiln {

bool TileLangLanguage::writtenIn(const QString &source) const
{
    return importsModule(source, QStringLiteral("tilelang"));
}

QStringList TileLangLanguage::kernelNames(const QString &source) const
{
    return decoratedFunctions(source, QStringLiteral("(\\w+\\.)?(prim_func|jit)"));
}

bool TileLangLanguage::ownsTraceKernel(const QString &traceName, const QStringList &kernels) const
{
    for (const QString &kernel : kernels) {
        if (traceName == kernel || traceName == kernel + QStringLiteral("_kernel"))
            return true;
    }
    return false;
}

QList<QPair<QString, QString>> TileLangLanguage::reducedDtypes() const
{
    return {{QStringLiteral("float16"), QStringLiteral("half")},
            {QStringLiteral("bfloat16"), QStringLiteral("bfloat16")},
            {QStringLiteral("float8_e4m3"), QStringLiteral("fp8")},
            {QStringLiteral("float8_e5m2"), QStringLiteral("fp8")},
            {QStringLiteral("int8"), QStringLiteral("int8")}};
}

} // namespace kiln
