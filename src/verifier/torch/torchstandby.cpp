#include "verifier/torch/torchstandby.h"

#include "verifier/harness/devicelock.h"

namespace kiln {

namespace {

constexpr qint64 kCandidateBufferBytes = 64 << 20;
constexpr qint64 kBuildBufferBytes = 1 << 20;

} // namespace

TorchStandby::~TorchStandby()
{
    m_cancel = true;
    QMutexLocker lock(&m_mutex);
    if (m_starting.valid())
        m_starting.get(); // the process, started or not, ends with its unique_ptr
}

std::unique_ptr<TorchProcess> TorchStandby::create(const VerifierOptions &options,
                                                   const TorchEnvironment &environment,
                                                   const KernelLanguage &language) const
{
    const bool candidate = m_role == TorchProcess::Role::Candidate;
    return std::make_unique<TorchProcess>(options, environment, m_role, QString(), m_buildSlots,
                                          candidate ? &language : nullptr);
}

void TorchStandby::prepare(const VerifierOptions &options, const TorchEnvironment &environment,
                           const KernelLanguage &language, const QString &lockName)
{
    std::unique_ptr<TorchProcess> process = create(options, environment, language);
    QMutexLocker lock(&m_mutex);
    if (m_starting.valid() && m_recipe == process->recipe())
        return;
    if (m_starting.valid())
        m_starting.get(); // another recipe's: not wanted any more
    m_recipe = process->recipe();
    const qint64 bufferBytes =
        m_role == TorchProcess::Role::Candidate ? kCandidateBufferBytes : kBuildBufferBytes;
    m_starting = std::async(
        std::launch::async,
        [this, lockName, bufferBytes,
         process = std::move(process)]() mutable -> std::unique_ptr<TorchProcess> {
            std::unique_ptr<DeviceLock> hold;
            if (!lockName.isEmpty())
                hold = std::make_unique<DeviceLock>(lockName, DeviceLock::Mode::Shared, &m_cancel);
            QString error;
            if ((hold && hold->cancelled()) ||
                !process->start(QString(), bufferBytes, &error, &m_cancel))
                return nullptr;
            return std::move(process);
        });
}

std::unique_ptr<TorchProcess> TorchStandby::take(const VerifierOptions &options,
                                                 const TorchEnvironment &environment,
                                                 const KernelLanguage &language)
{
    const QString recipe = create(options, environment, language)->recipe();
    QMutexLocker lock(&m_mutex);
    if (!m_starting.valid() || m_recipe != recipe)
        return nullptr;
    m_recipe.clear();
    std::unique_ptr<TorchProcess> process = m_starting.get();
    if (process && !process->process().running())
        return nullptr; // ended while it waited: the caller starts its own
    return process;
}

} // namespace kiln
