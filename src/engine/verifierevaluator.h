#pragma once

#include "engine/evaluator.h"
#include "verifier/verifier.h"

#include <QSemaphore>

namespace kiln {

// The engine's Evaluator on top of the real verifier. One instance may serve several engines at
// once (the window's live runs): at most `sandboxes` CPU-backend candidates are judged at a time
// over all of them, each in its own kiln-sandbox process, and CUDA candidates share the
// verifier's one persistent sandbox per GPU.
class VerifierEvaluator : public Evaluator
{
public:
    VerifierEvaluator(VerifierOptions options, int sandboxes);
    // The CPU sandboxes to use when the user did not say: a few, leaving a core for the rest.
    static int machineSandboxes();
    EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                              quint64 runSecret, const std::atomic<bool> &cancel) override;
    int concurrency() const override { return m_sandboxes; }
    Verifier &verifier() { return m_verifier; }
    // CPU sandboxes busy right now, over every engine this evaluator serves.
    int busySandboxes() const { return m_sandboxes - m_cpuSlots.available(); }

private:
    Verifier m_verifier;
    int m_sandboxes;
    QSemaphore m_cpuSlots;
};

} // namespace kiln
