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

// A candidate process started ahead for the next evaluation: python3 and torch with the audit's
// op recorder warmed take 4-7 s on a GPU machine, longer than an inline-CUDA build, and a JIT
// language's candidate (Triton) has no build to hide them behind. The process starts exactly as
// a candidate's would (its own work folder and compile cache; its extension folder and device
// given later, by its evaluation) and is handed out once, before any candidate code has run in
// it. One is kept per backend; a request of another recipe (language, options) drops it.
class TorchStandby
{
public:
    TorchStandby() = default;
    ~TorchStandby();
    TorchStandby(const TorchStandby &) = delete;
    TorchStandby &operator=(const TorchStandby &) = delete;

    // Starts one in the background, unless one of the same recipe is ready or starting.
    // lockName: a device lock held (shared) while it starts, where a start
    // would disturb a timed window (torch's CPU device); empty for none.
    void prepare(const VerifierOptions &options, const TorchEnvironment &environment,
                 const KernelLanguage &language, const QString &lockName);
    // The process started ahead with this recipe (waiting for its start to end), or null.
    std::unique_ptr<TorchProcess> take(const VerifierOptions &options,
                                       const TorchEnvironment &environment,
                                       const KernelLanguage &language);

private:
    static std::unique_ptr<TorchProcess> create(const VerifierOptions &options,
                                                const TorchEnvironment &environment,
                                                const KernelLanguage &language);

    QMutex m_mutex;
    QString m_recipe;
    std::future<std::unique_ptr<TorchProcess>> m_starting;
    std::atomic<bool> m_cancel{false};
};

} // namespace kiln
