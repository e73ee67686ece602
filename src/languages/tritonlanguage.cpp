#include "languages/tritonlanguage.h"

namespace kiln {

bool TritonLanguage::writtenIn(const QString &source) const
{
    return importsModule(source, QStringLiteral("triton"));
}

QStringList TritonLanguage::kernelNames(const QString &source) const
{
    return decoratedFunctions(source, QStringLiteral("(\\w+\\.)?jit"));
}

QStringList TritonLanguage::libraryParts() const
{
    // Triton's bundled matmul and the kernels Inductor writes compute the answer for you.
    return {QStringLiteral("triton.ops"), QStringLiteral("triton.kernels"),
            QStringLiteral("triton.tools")};
}

QList<QPair<QString, QString>> TritonLanguage::reducedDtypes() const
{
    return {{QStringLiteral("float16"), QStringLiteral("half")},
            {QStringLiteral("bfloat16"), QStringLiteral("bfloat16")},
            {QStringLiteral("float8e4nv"), QStringLiteral("fp8")},
            {QStringLiteral("float8e5"), QStringLiteral("fp8")},
            {QStringLiteral("float8e4b15"), QStringLiteral("fp8")},
            {QStringLiteral("float8e4b8"), QStringLiteral("fp8")},
            {QStringLiteral("float8e5b16"), QStringLiteral("fp8")},
            {QStringLiteral("int8"), QStringLiteral("int8")},
            {QStringLiteral("uint8"), QStringLiteral("int8")}};
}

QList<KernelLanguage::PrecisionKeyword> TritonLanguage::precisionKeywords() const
{
    return {{QStringLiteral("dot"),
             QStringLiteral("input_precision"),
             {QStringLiteral("tf32"), QStringLiteral("tf32x3"), QStringLiteral("bf16x3"),
              QStringLiteral("bf16x6"), QStringLiteral("bf16x9")},
             QStringLiteral("tf32"),
             3}, // tl.dot(input, other, acc, input_precision, allow_tf32, ...)
            {QStringLiteral("dot"),
             QStringLiteral("allow_tf32"),
             {QStringLiteral("True")},
             QStringLiteral("tf32"),
             4},
            {QStringLiteral("dot_scaled"), QString(), {}, QStringLiteral("fp8")}};
}

QStringList TritonLanguage::environment(const QString &workDir) const
{
    return {QStringLiteral("TRITON_CACHE_DIR=%1/triton-cache").arg(workDir),
            QStringLiteral("TRITON_HOME=%1").arg(workDir),
            QStringLiteral("TRITON_F32_DEFAULT=ieee")};
}

} // namespace kiln
