#pragma once

#include "languages/kernellanguage.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchprocess.h"

#include <QMutex>
#include <QString>
#include <atomic>
#include <future>
#include <memory>

namespace kiln {

// A candidate's (or a build's) process started ahead for the next evaluation: python3 and torch,
// with the audit's op recorder warmed for a candidate, take 3-7 s on a GPU machine, as long as
// an inline-CUDA build itself, and a JIT language's candidate (Triton) has no build to hide
// them behind. The process starts exactly as one of its role would (its own work folder and
// compile cache; its extension folder and device given later, by its evaluation) and is handed
// out once, before any candidate code has run in it. One is kept per role and backend; a
// request of another recipe (language, options) drops it.
class TorchStandby
{
public:
    // buildSlots: builds that may run at once (their compilers share the cores).
    explicit TorchStandby(TorchProcess::Role role, int buildSlots = 1)
        : m_role(role), m_buildSlots(buildSlots)
    {
    }
    ~TorchStandby();
    TorchStandby(const TorchStandby &) = delete;
    TorchStandby &operator=(const TorchStandby &) = delete;

    // Starts one in the background, unless one of the same recipe is ready or starting (the
    // language counts for a candidate only). lockName: a device lock held (shared) while it starts,
    // where a start would disturb a timed window (torch's CPU device); empty for none.
    void prepare(const VerifierOptions &options, const TorchEnvironment &environment,
                 const KernelLanguage &language, const QString &lockName);
    // The process started ahead with this recipe (waiting for its start to end), or null.
    std::unique_ptr<TorchProcess> take(const VerifierOptions &options,
                                       const TorchEnvironment &environment,
                                       const KernelLanguage &language);

private:
    std::unique_ptr<TorchProcess> create(const VerifierOptions &options,
                                         const TorchEnvironment &environment,
                                         const KernelLanguage &language) const;

    const TorchProcess::Role m_role;
    const int m_buildSlots;
    QMutex m_mutex;
    QString m_recipe;
    std::future<std::unique_ptr<TorchProcess>> m_starting;
    std::atomic<bool> m_cancel{false};
};

} // namespace kiln
