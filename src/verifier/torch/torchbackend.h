#pragma once

#include "tasks/task.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchreference.h"
#include "verifier/torch/torchstandby.h"

#include <QMutex>
#include <QSemaphore>
#include <list>
#include <map>
#include <memory>

namespace kiln {

// What the PyTorch backend keeps between evaluations: the environment (probed once), the GPU
// (one evaluation at a time uses it; builds run outside it, in parallel), the reference
// processes of the problems evaluated last, and a candidate's and a build's process started
// ahead.
class TorchBackend
{
public:
    explicit TorchBackend(const VerifierOptions &options);

    const TorchEnvironment &environment();
    QMutex &gpu() { return m_gpu; }
    // Extension builds under way at once (each runs a parallel ninja of its own).
    QSemaphore &builds() { return m_builds; }
    int buildSlots() const { return m_buildSlots; }
    // One build of a source at a time: two evaluations of the same source (common in a
    // search) would otherwise build in the same folder at once.
    QMutex &buildLock(const QString &key);
    // The reference of a task, started on demand; call with gpu() held.
    TorchReference &reference(const Task &task);
    // The next candidate's and the next build's processes, started ahead.
    TorchStandby &standby() { return m_standby; }
    TorchStandby &buildStandby() { return m_buildStandby; }

    static constexpr int kKeptReferences = 2;

private:
    const VerifierOptions &m_options;
    QMutex m_probeMutex;
    bool m_probed = false;
    TorchEnvironment m_environment;
    QMutex m_gpu;
    int m_buildSlots;    // a quarter of the cores' worth of builds, at least two
    QSemaphore m_builds; // m_buildSlots of them
    QMutex m_buildLocksMutex;
    std::map<QString, std::unique_ptr<QMutex>> m_buildLocks;
    std::list<std::unique_ptr<TorchReference>> m_references; // most recent first
    // Last: they end (a start under way cancelled) before the rest.
    // Two candidates' processes on a GPU, where a start (3-9 s) can outlast an evaluation;
    // one on torch's CPU device, whose starts compete with the timed windows for the cores.
    TorchStandby m_standby{TorchProcess::Role::Candidate, 1,
                           m_options.torchDevice == QLatin1String("cpu") ? 1 : 2};
    TorchStandby m_buildStandby{TorchProcess::Role::Build, m_buildSlots};
};

} // namespace kiln
