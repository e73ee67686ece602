#pragma once

#include "verifier/harness/compilecache.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QJsonArray>

namespace kiln {

// Compiles one source (candidate or reference) inside a started sandbox, through the cache.
class SandboxCompiler
{
public:
    struct Outcome
    {
        CompiledArtifact artifact;
        SandboxProcess::Status status = SandboxProcess::Status::Ok; // of the compile request
        QString error;   // sandbox-level failure, not a compiler diagnostic
        double ms = 0.0; // wall time spent here (0-ish on a cache hit)
    };

    static Outcome compile(SandboxProcess &sandbox, CompileCache &cache,
                           const VerifierOptions &options, const QString &taskName,
                           const QString &source, const QString &shim,
                           const std::atomic<bool> *cancel);
    // Diagnostics of the candidate's file: [{line, column, severity, message}].
    static QJsonArray parseDiagnostics(const QString &log, const QString &file);
};

} // namespace kiln
