#include "verifier/verifierpool.h"

#include <QtConcurrent/QtConcurrentRun>

namespace kiln {

VerifierPool::VerifierPool(VerifierOptions options, int sandboxes)
    : m_verifier(std::move(options)), m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    m_threads.setMaxThreadCount(qMax(1, sandboxes));
}

VerifierPool::~VerifierPool()
{
    cancelAll();
    waitForDone();
}

void VerifierPool::setSandboxCount(int count)
{
    m_threads.setMaxThreadCount(qMax(1, count));
}

QFuture<EvaluationResult> VerifierPool::submit(const Task &task, Backend backend,
                                               const QString &source, quint64 runSecret)
{
    std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    return QtConcurrent::run(&m_threads, [this, task, backend, source, runSecret, cancel] {
        return m_verifier.evaluate(task, backend, source, runSecret, *cancel);
    });
}

void VerifierPool::cancelAll()
{
    m_threads.clear();
    m_cancel->store(true);
    // Later submissions get a fresh flag; running ones keep the raised one.
    m_cancel = std::make_shared<std::atomic<bool>>(false);
}

void VerifierPool::waitForDone()
{
    m_threads.waitForDone();
}

} // namespace kiln
