#pragma once

#include "verifier/harness/compilecache.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QJsonArray>
#include <atomic>

namespace kiln {

// Compiles CUDA sources through the compile cache, each in a short-lived process of its own, so
// a compiler hang or bomb never touches a GPU's sandboxes and no compile waits for the GPU:
// nvcc (host launch code allowed) in a kiln-sandbox, NVRTC (device-only candidates) in a
// kiln-cuda-sandbox --compile-only, which creates no device context.
class CudaCompiler
{
public:
    struct Outcome
    {
        CompiledArtifact artifact; // sharedObject: the .so (nvcc) or the cubin (NVRTC)
        SandboxProcess::Status status = SandboxProcess::Status::Ok;
        QString error;      // sandbox-level failure, not a compiler diagnostic
        double ms = 0.0;    // wall time spent here
        QJsonArray kernels; // nvcc: per kernel {name, registers, shared_bytes, spill_bytes}
    };

    // source + the CUDA entry shim into kernel.so; libraries: extra -l names (the cuBLAS
    // baseline), never given to candidates.
    static Outcome nvcc(const VerifierOptions &options, CompileCache &cache,
                        const QString &taskName, const QString &source, const QString &shim,
                        const QString &architecture, const QStringList &libraries,
                        const std::atomic<bool> *cancel);
    static Outcome nvrtc(const VerifierOptions &options, CompileCache &cache,
                         const QString &taskName, const QString &source,
                         const QString &architecture, const std::atomic<bool> *cancel);

    // Diagnostics of cand.cu in nvcc / NVRTC / host-compiler form: [{line, column, severity,
    // message}].
    static QJsonArray parseDiagnostics(const QString &log);
    // Per-kernel resource usage from ptxas -v output.
    static QJsonArray parseResourceUsage(const QString &log);
    static QString sourceName() { return QStringLiteral("cand.cu"); }
};

} // namespace kiln
