#pragma once

#include "tasks/task.h"
#include "torchenvironment.h"
#include "torchreference.h"

#include <QMutex>
#include <QSemaphore>
#include <list>
#include <memory>

namespace kiln {

// What the PyTorch backend keeps between evaluations: the environment (probed once), the GPU
// (one evaluation at a time uses it; builds run outside it, in parallel) and the reference
// processes of the problems evaluated last.
class TorchBackend
{
public:
    explicit TorchBackend(const VerifierOptions &options);

    const TorchEnvironment &environment();
    QMutex &gpu() { return m_gpu; }
    // Extension builds under way at once (each runs a parallel ninja of its own).
    QSemaphore &builds() { return m_builds; }
    // The reference of a task, started on demand; call with gpu() held.
    TorchReference &reference(const Task &task);

    static constexpr int kKeptReferences = 2;

private:
    const VerifierOptions &m_options;
    QMutex m_probeMutex;
    bool m_probed = false;
    TorchEnvironment m_environment;
    QMutex m_gpu;
    QSemaphore m_builds; // a quarter of the cores' worth of builds, at least two
    std::list<std::unique_ptr<TorchReference>> m_references; // most recent first
};

} // namespace kiln
