#pragma once

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QSet>
#include <QString>
#include <QStringList>

namespace kiln {

// The GPU time of a candidate's forward by kernel, from the torch.profiler trace that
// kiln_torch_worker.py's "profile" request sums by name, split between the candidate's own
// kernels and the libraries' (ATen, cuBLAS, cuDNN, CUTLASS, copies and fills). A kernel is the
// candidate's own when its name (without namespaces, template arguments and parameters) is a
// word of the candidate's source and no library's: what the source does not name, the
// candidate did not write.
class TorchKernelShare
{
public:
    struct Kernel
    {
        QString name;
        double us = 0.0;
        qint64 count = 0;
        bool own = false;
        bool gemmOrConvolution = false; // a library GEMM, GEMV, convolution or FFT kernel
        bool tf32 = false;              // a library kernel that computes in TF32
    };

    TorchKernelShare(const QJsonObject &profile, const QString &candidateSource);

    double totalUs() const { return m_totalUs; }
    double ownUs() const { return m_ownUs; }
    double libraryGemmUs() const { return m_libraryGemmUs; }
    // The own kernels' part of the GPU time, 0 when the trace holds none.
    double ownShare() const { return m_totalUs > 0.0 ? m_ownUs / m_totalUs : 0.0; }
    const QList<Kernel> &kernels() const { return m_kernels; }
    QStringList tf32Kernels() const;

    // "own kernels 4 % of 120.5 us; top: sm90_xmma_gemm... 80 % (library), ..."
    QString summary(int top = 3) const;
    QJsonObject toJson(int top = 8) const;

    // "void at::native::k<float>(float*)" -> {"at::native::k", "k"}.
    static QPair<QString, QString> kernelName(const QString &demangled);
    // A name only a library's kernel has: its namespace (at::, cudnn:: ...), its prefix
    // (sm90_xmma_, ampere_sgemm ...) or a library's name in it.
    static bool isLibraryKernel(const QString &demangled);

private:
    QList<Kernel> m_kernels;
    double m_totalUs = 0.0;
    double m_ownUs = 0.0;
    double m_libraryGemmUs = 0.0;
};

} // namespace kiln
