#pragma once

#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/spawnerthread.h"
#include "verifier/harness/verifieroptions.h"

#include <QMutex>
#include <QTemporaryDir>
#include <atomic>
#include <memory>
#include <vector>

namespace kiln {

// The CPU backend's timing baselines: kiln-sandbox processes that load a task's reference and
// nothing else. No candidate code ever enters one, so it can serve evaluation after evaluation
// of a run; keeping them saves a process start and a load per evaluation. Thread-safe.
class BaselineSandboxes
{
public:
    struct Baseline
    {
        std::unique_ptr<QTemporaryDir> work;
        std::unique_ptr<SandboxProcess> process;
        QString referenceObject;
        int evaluations = 0;
    };

    explicit BaselineSandboxes(const VerifierOptions &options);
    ~BaselineSandboxes();

    // A sandbox with `referenceObject` loaded: a kept one, or a new one; null with *error.
    std::unique_ptr<Baseline> take(const QString &referenceObject, const std::atomic<bool> &cancel,
                                   QString *error);
    // Back for the next evaluation; dropped when it failed, when it has served long enough
    // (its CPU limit is a lifetime allowance), or when enough are kept already.
    void give(std::unique_ptr<Baseline> baseline, bool healthy);
    // How many wait, idle, for the next evaluation; and stopping them all (tests check that
    // nothing else is left running). Ones taken by running evaluations are not touched.
    int kept();
    void release();

private:
    std::unique_ptr<Baseline> start(const QString &referenceObject, const std::atomic<bool> &cancel,
                                    QString *error) const;
    bool worn(const Baseline &baseline) const;

    const VerifierOptions &m_options;
    std::unique_ptr<SpawnerThread> m_spawner; // starts every baseline (see start())
    QMutex m_mutex;
    std::vector<std::unique_ptr<Baseline>> m_kept;
};

} // namespace kiln
