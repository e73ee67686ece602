#pragma once

#include "compilecache.h"
#include "core/backend.h"
#include "core/evaluationresult.h"
#include "referencebank.h"
#include "tasks/task.h"
#include "verifieroptions.h"

#include <atomic>
#include <memory>

namespace kiln {

// The verification pipeline of verifier.md for one candidate: screen, compile, correctness,
// timing, verdict. The candidate runs in a kiln-sandbox process; statistics and the verdict are
// computed here. Thread-safe: several evaluations may run at once (see VerifierPool).
class Verifier
{
public:
    explicit Verifier(VerifierOptions options = VerifierOptions::defaults());
    ~Verifier();

    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel);
    // Convenience for callers without a cancel flag.
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret);

    const VerifierOptions &options() const { return m_options; }
    CompileCache &compileCache() { return m_cache; }
    // Empty when the sandbox executable can be run; otherwise why not.
    QString checkSetup() const;

private:
    VerifierOptions m_options;
    CompileCache m_cache;
    ReferenceBank m_references;
};

} // namespace kiln
