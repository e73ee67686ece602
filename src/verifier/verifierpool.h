#pragma once

#include "verifier/verifier.h"

#include <QFuture>
#include <QThreadPool>
#include <atomic>

namespace kiln {

// Several sandboxes evaluating at once (one evaluation = one sandbox process). The count is
// configurable: a few for the CPU backend, one per GPU for CUDA.
class VerifierPool
{
public:
    explicit VerifierPool(VerifierOptions options = VerifierOptions::defaults(), int sandboxes = 2);
    ~VerifierPool();

    // Task and source are copied: the caller may let go of them.
    QFuture<EvaluationResult> submit(const Task &task, Backend backend, const QString &source,
                                     quint64 runSecret);
    // Kills running sandboxes promptly (their results come back as cancelled) and drops
    // queued work. New submissions after cancelAll() run normally.
    void cancelAll();
    void waitForDone();

    int sandboxCount() const { return m_threads.maxThreadCount(); }
    void setSandboxCount(int count);
    Verifier &verifier() { return m_verifier; }

private:
    Verifier m_verifier;
    QThreadPool m_threads;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace kiln
