#pragma once

#include "languages/kernellanguage.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchprocess.h"

#include <QJsonObject>
#include <QMutex>
#include <QString>
#include <atomic>
#include <deque>
#include <future>
#include <memory>

namespace kiln {

// A candidate's (or a build's) process started ahead for the next evaluation: python3 and torch,
// with the audit's op recorder warmed for a candidate, take 3-7 s on a GPU machine, as long as
// an inline-CUDA build itself, and a JIT language's candidate (Triton) has no build to hide
// them behind. The process starts exactly as one of its role would (its own work folder and
// compile cache; its extension folder and device given later, by its evaluation) and is handed
// out once, before any candidate code has run in it. `depth` are kept starting per role and
// backend, since a start can take longer than the evaluation it waits behind; a request of
// another recipe (language, options) drops them.
class TorchStandby
{
public:
    // buildSlots: builds that may run at once (their compilers share the cores).
    explicit TorchStandby(TorchProcess::Role role, int buildSlots = 1, int depth = 1)
        : m_role(role), m_buildSlots(buildSlots), m_depth(depth)
    {
    }
    ~TorchStandby();
    TorchStandby(const TorchStandby &) = delete;
    TorchStandby &operator=(const TorchStandby &) = delete;

    struct Request
    {
        const VerifierOptions &options;
        const TorchEnvironment &environment;
        const KernelLanguage &language; // counts for a candidate only
        QString extensionDir;           // given to the process with its device
        QString startLock; // held shared while a process starts (the CPU device's), or none
        QString openLock;  // held shared while the device opens (a candidate's GPU), or none
        const std::atomic<bool> *cancel = nullptr;
    };
    struct Acquired
    {
        std::unique_ptr<TorchProcess> process; // null: error says why
        QString error;
        bool startedAhead = false;
        double startMs = 0.0;    // waiting for the process (started ahead or new)
        double openMs = 0.0;     // its device opening, with the wait for openLock
        QJsonObject startPhases; // TorchProcess::startPhases
    };

    // A process for an evaluation, its device open: the one started ahead where its recipe
    // matches, else a new one; the next one starts in the background either way. One started
    // ahead that fails to open (it ended while it waited) is replaced by a new one, once.
    Acquired acquire(const Request &request);

private:
    struct Start
    {
        QString recipe;
        std::shared_ptr<std::atomic<bool>> cancel; // set when the start is no longer wanted
        std::future<std::unique_ptr<TorchProcess>> process;
    };

    std::unique_ptr<TorchProcess> create(const Request &request) const;
    qint64 startBufferBytes() const; // the shared buffer a process of this role starts with
    // Starts processes in the background until `depth` of this recipe are ready or starting.
    void prepare(const Request &request);
    // The process started ahead with this recipe (waiting for its start, or for the caller's
    // cancel), or null.
    std::unique_ptr<TorchProcess> take(const Request &request);
    void dropAll(); // ends every start (m_mutex held)
    bool open(TorchProcess &process, const Request &request, QString *error) const;

    const TorchProcess::Role m_role;
    const int m_buildSlots;
    const int m_depth;
    QMutex m_mutex;
    std::deque<Start> m_starts; // the oldest first
};

} // namespace kiln
