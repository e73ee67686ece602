#pragma once

#include "core/profilerecord.h"
#include "tasks/task.h"
#include "verifier/harness/verifieroptions.h"

#include <atomic>

namespace kiln {

// Runs a kernel once more under Nsight Compute (docs/cuda-backend.md "Hardware profiles"). A
// verifier of its own starts the candidates' process under ncu, the two alone in a network
// namespace, and confines it as always otherwise (--profiled); the evaluation is the usual one,
// correctness then timing, with the run's secret. The report's launches at the timing shape
// are summarised (NsightMetrics). Where no profile can be taken, the record says why.
class CandidateProfiler
{
public:
    explicit CandidateProfiler(VerifierOptions options);
    // subject: "candidate" or "reference" (the task's reference source, profiled the same way).
    // reportBase: the report's path without ".ncu-rep", in the workspace.
    ProfileRecord profile(const Task &task, Backend backend, const QString &source, quint64 secret,
                          const QString &subject, const QString &reportBase,
                          const std::atomic<bool> &cancel) const;
    // Adds the verifier's own median per call and ncu's difference from it, in per cent.
    static void compareWithVerifier(ProfileRecord &record, double verifierMedianMs);
    // Why this machine cannot profile `backend`, empty where it may (ncu found and permitted).
    static QString unavailable(Backend backend);

private:
    ProfileRecord read(ProfileRecord record, const QString &ncu, const QString &reportBase) const;
    static QJsonObject fingerprint(const QString &ncu, const QJsonObject &device);

    VerifierOptions m_options;
};

} // namespace kiln
