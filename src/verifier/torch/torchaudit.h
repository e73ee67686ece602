#pragma once

#include "verifier/torch/torchprocess.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <optional>

namespace kiln {

class TorchOpRecord;

// The audit of a correct PyTorch candidate (docs/kernelbench.md, "Audit"): what its process
// shows about how it computes, asked of kiln_torch_worker.py once correctness (and timing)
// passed, and turned into flags here:
//  - precision: the dtypes of the ATen ops its forward runs against the reference's, TF32
//    settings its process switched, TF32 library kernels in its trace (precision_downgrade);
//  - coverage, on a GPU: the share of the forward's GPU time in its own kernels. A GEMM or
//    convolution the reference does not run doing most of the work is torch_library_gemm;
//    own kernels under a tenth of the time otherwise is torch_library_share (advice);
//  - replay: the forward again with its extensions' functions neutralised. Outputs that come
//    out the same do not depend on its kernels (torch_ghost_kernel).
class TorchAudit
{
public:
    struct Finding
    {
        QString flag;
        QString detail;
    };
    struct Outcome
    {
        QList<Finding> findings;
        QJsonObject data;  // "precision", "coverage", "replay": the evidence
        QStringList notes; // requests that failed: the audit is incomplete
        QString summary;   // one line for the stage
    };
    // Whether two lists of the candidate's outputs (both in its buffer) agree within the task's
    // tolerance: the replay's against the forward's own.
    using SameOutputs = std::function<bool(const QJsonArray &normal, const QJsonArray &replay)>;

    // Own kernels below this share of the GPU time do a trivial part of the work.
    static constexpr double kOwnShareFloor = 0.10;
    // A substituted library GEMM or convolution must take at least this share, and more than
    // the own kernels, to count as doing the work.
    static constexpr double kLibraryGemmFloor = 0.30;
    static constexpr int kProfiledCalls = 5;

    // referenceRecord: the reference process's op record, kept by its owner between audits
    // (the problem's ops and dtypes do not change with the inputs); asked for when empty.
    TorchAudit(TorchProcess &candidate, TorchProcess &reference,
               std::optional<QJsonObject> &referenceRecord, QString candidateSource, int timeoutMs,
               const std::atomic<bool> &cancel);

    // seed: the noise of the replay and the fresh inputs of the profiled calls; outputAt: where
    // the candidate writes the replay's outputs in its buffer.
    Outcome run(quint64 seed, qint64 outputAt, const SameOutputs &sameOutputs);

private:
    std::optional<QJsonObject> ask(TorchProcess &process, const QByteArray &line,
                                   const QString &what);
    void judgePrecision(const TorchOpRecord &reference, const TorchOpRecord &candidate,
                        const QStringList &tf32Kernels);
    QStringList judgeCoverage(const QJsonObject &profile, const TorchOpRecord &reference,
                              const TorchOpRecord &candidate);
    void judgeReplay(const QJsonObject &replay, const SameOutputs &sameOutputs);

    TorchProcess &m_candidate;
    TorchProcess &m_reference;
    std::optional<QJsonObject> &m_referenceRecord;
    QString m_source;
    int m_timeoutMs;
    const std::atomic<bool> &m_cancel;
    bool m_candidateLost = false;
    Outcome m_outcome;
    QStringList m_summary;
};

} // namespace kiln
