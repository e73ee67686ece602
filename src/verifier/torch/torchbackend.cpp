#include "verifier/torch/torchbackend.h"

#include <QThread>
#include <algorithm>

namespace kiln {

TorchBackend::TorchBackend(const VerifierOptions &options)
    : m_options(options), m_buildSlots(std::max(2, QThread::idealThreadCount() / 4)),
      m_builds(m_buildSlots)
{
}

QMutex &TorchBackend::buildLock(const QString &key)
{
    QMutexLocker lock(&m_buildLocksMutex);
    std::unique_ptr<QMutex> &entry = m_buildLocks[key];
    if (!entry)
        entry = std::make_unique<QMutex>();
    return *entry;
}

const TorchEnvironment &TorchBackend::environment()
{
    QMutexLocker lock(&m_probeMutex);
    if (!m_probed) {
        m_environment = TorchEnvironment::probe(m_options);
        m_probed = true;
    }
    return m_environment;
}

TorchReference &TorchBackend::reference(const Task &task)
{
    for (auto it = m_references.begin(); it != m_references.end(); ++it) {
        if ((*it)->taskName() == task.name &&
            (*it)->source() == task.referenceSource.value(Backend::Torch)) {
            m_references.splice(m_references.begin(), m_references, it);
            return *m_references.front();
        }
    }
    m_references.push_front(std::make_unique<TorchReference>(m_options, environment(), task));
    while (int(m_references.size()) > kKeptReferences)
        m_references.pop_back();
    return *m_references.front();
}

} // namespace kiln
