#include "cudalexer.h"

#include <QByteArray>
#include <QFont>

namespace kiln {

CudaLexer::CudaLexer(QObject *parent) : QsciLexerCPP(parent)
{
    QFont mono(QStringLiteral("DejaVu Sans Mono"));
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSize(10);
    setDefaultFont(mono);
    setFont(mono);
    setDefaultPaper(QColor(0xff, 0xff, 0xff));
    setPaper(QColor(0xff, 0xff, 0xff));
    // A calm palette close to common IDE light themes.
    setColor(QColor(0x1f, 0x23, 0x28), Default);
    setColor(QColor(0x0b, 0x4f, 0xa8), Keyword);
    setColor(QColor(0x8a, 0x3f, 0xb3), KeywordSet2);
    setColor(QColor(0x6a, 0x73, 0x7d), Comment);
    setColor(QColor(0x6a, 0x73, 0x7d), CommentLine);
    setColor(QColor(0x6a, 0x73, 0x7d), CommentDoc);
    setColor(QColor(0x0a, 0x7e, 0x5c), Number);
    setColor(QColor(0xa3, 0x15, 0x15), DoubleQuotedString);
    setColor(QColor(0xa3, 0x15, 0x15), SingleQuotedString);
    setColor(QColor(0x9a, 0x6e, 0x00), PreProcessor);
    setColor(QColor(0x1f, 0x23, 0x28), Operator);
    QFont bold = mono;
    bold.setBold(true);
    setFont(bold, Keyword);
}

const char *CudaLexer::keywords(int set) const
{
    if (set == 1) {
        static const QByteArray words =
            QByteArray(QsciLexerCPP::keywords(1)) +
            " __global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__"
            " __forceinline__ __noinline__ __launch_bounds__ __syncthreads __syncwarp"
            " __threadfence __shfl_sync __shfl_down_sync __shfl_up_sync __shfl_xor_sync"
            " __ldg __fmaf_rn __expf __logf __fdividef restrict";
        return words.constData();
    }
    if (set == 2) {
        // Highlighted as "secondary keywords": built-ins and runtime types.
        return "threadIdx blockIdx blockDim gridDim warpSize dim3 cudaStream_t cudaError_t"
               " cudaSuccess cudaMalloc cudaMallocAsync cudaFree cudaFreeAsync cudaMemcpy"
               " cudaMemcpyAsync cudaMemsetAsync cudaStreamSynchronize cudaDeviceSynchronize"
               " cudaGetLastError float2 float4 int2 int4 half half2 size_t uint32_t int32_t"
               " int64_t uint64_t omp";
    }
    return QsciLexerCPP::keywords(set);
}

} // namespace kiln
