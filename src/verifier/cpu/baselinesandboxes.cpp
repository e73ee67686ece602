#include "verifier/cpu/baselinesandboxes.h"

#include "verifier/harness/entryshim.h"

namespace kiln {

namespace {

constexpr int kKept = 4;          // evaluations at once, at most, that find one ready
constexpr int kEvaluations = 200; // before a fresh process

void stop(SandboxProcess &process)
{
    process.request("quit", 500);
    process.kill();
}

} // namespace

BaselineSandboxes::BaselineSandboxes(const VerifierOptions &options)
    : m_options(options), m_spawner(std::make_unique<SpawnerThread>())
{
}

BaselineSandboxes::~BaselineSandboxes()
{
    release();
}

int BaselineSandboxes::kept()
{
    QMutexLocker lock(&m_mutex);
    return int(m_kept.size());
}

void BaselineSandboxes::release()
{
    std::vector<std::unique_ptr<Baseline>> idle;
    {
        QMutexLocker lock(&m_mutex);
        idle.swap(m_kept);
    }
    for (const auto &baseline : idle)
        stop(*baseline->process);
}

std::unique_ptr<BaselineSandboxes::Baseline>
BaselineSandboxes::start(const QString &referenceObject, const std::atomic<bool> &cancel,
                         QString *error) const
{
    auto baseline = std::make_unique<Baseline>();
    baseline->referenceObject = referenceObject;
    baseline->work = std::make_unique<QTemporaryDir>(m_options.workRoot +
                                                     QStringLiteral("/kiln-baseline-XXXXXX"));
    // Its CPU limit is a lifetime allowance: one evaluation's limit for each evaluation it may
    // serve; worn() retires it before it runs out.
    SandboxSettings settings = m_options.sandbox;
    settings.cpuSeconds = m_options.sandbox.cpuSeconds * kEvaluations;
    baseline->process = std::make_unique<SandboxProcess>(settings);
    if (!baseline->work->isValid())
        return nullptr;
    // Started from the spawner thread, which outlives the evaluation threads that will use it:
    // started from one of those, it was killed when that thread ended, in another
    // evaluation's timed call.
    bool started = false;
    m_spawner->run([&] {
        started = baseline->process->start(baseline->work->path(), 1 << 20,
                                           m_options.startTimeoutMs, error);
    });
    if (!started)
        return nullptr;
    const SandboxProcess::Reply reply =
        baseline->process->request("load r " + QByteArray(EntryShim::kSymbol) + ' ' +
                                       baseline->process->stage(referenceObject).toLocal8Bit(),
                                   m_options.callTimeoutMs, &cancel);
    if (reply.status != SandboxProcess::Status::Ok) {
        *error = QStringLiteral("cannot load the baseline: ") + baseline->process->describeEnd();
        stop(*baseline->process);
        return nullptr;
    }
    return baseline;
}

std::unique_ptr<BaselineSandboxes::Baseline>
BaselineSandboxes::take(const QString &referenceObject, const std::atomic<bool> &cancel,
                        QString *error)
{
    {
        QMutexLocker lock(&m_mutex);
        for (auto it = m_kept.begin(); it != m_kept.end();) {
            if (!(*it)->process->running()) { // died while idle: make room for a live one
                it = m_kept.erase(it);
                continue;
            }
            if ((*it)->referenceObject != referenceObject) {
                ++it;
                continue;
            }
            std::unique_ptr<Baseline> baseline = std::move(*it);
            m_kept.erase(it);
            return baseline;
        }
    }
    return start(referenceObject, cancel, error);
}

bool BaselineSandboxes::worn(const Baseline &baseline) const
{
    const SandboxProcess &process = *baseline.process;
    return baseline.evaluations >= kEvaluations ||
           process.cpuSecondsUsed() + m_options.sandbox.cpuSeconds > process.settings().cpuSeconds;
}

void BaselineSandboxes::give(std::unique_ptr<Baseline> baseline, bool healthy)
{
    if (!baseline)
        return;
    ++baseline->evaluations;
    if (healthy && baseline->process->running() && !worn(*baseline)) {
        QMutexLocker lock(&m_mutex);
        if (int(m_kept.size()) < kKept) {
            m_kept.push_back(std::move(baseline));
            return;
        }
    }
    stop(*baseline->process);
}

} // namespace kiln
