#pragma once

#include "engine/evaluator.h"
#include "verifier/verifier.h"

namespace kiln {

// The engine's Evaluator on top of the real verifier: up to `sandboxes` candidates are judged at
// once, each in its own kiln-sandbox process.
class VerifierEvaluator : public Evaluator
{
public:
    VerifierEvaluator(VerifierOptions options, int sandboxes);
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel) override;
    int concurrency() const override { return m_sandboxes; }
    Verifier &verifier() { return m_verifier; }

private:
    Verifier m_verifier;
    int m_sandboxes;
};

} // namespace kiln
