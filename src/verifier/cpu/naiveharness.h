#pragma once

#include "core/timingstats.h"
#include "tasks/task.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QString>
#include <atomic>
#include <functional>

namespace kiln {

// The harness of `--verifier lenient`: what a naive benchmark does, on purpose, so a workshop can
// see what it lets through (robust-kbench's lesson). One shape (the timing shape), one input set
// drawn from a fixed seed, the output buffer pre-filled with the reference's answer before the
// candidate runs, no static screen and no anti-cheat check, and the same inputs for every timed
// call, with the reference timed in the candidate's own process. Never the default; every report
// of such a run says it was judged this way.
class NaiveHarness
{
public:
    struct Outcome
    {
        bool ran = false; // every request answered (else the failure callback was told why)
        bool correct = false;
        CheckResult check; // the first output that failed, or the last one checked
        QString detail;
        TimingStats candidate;
        TimingStats reference;
    };
    // A request that did not answer "ok": the reply and what was being done.
    using Failure = std::function<void(const SandboxProcess::Reply &, const QString &)>;

    NaiveHarness(SandboxProcess &sandbox, const VerifierOptions &options, const Task &task,
                 const std::atomic<bool> &cancel, Failure failure);

    // The candidate is loaded in slot 'c'; the reference object goes into slot 'r'.
    Outcome run(const QString &referenceObject, bool timing);

    static constexpr quint64 kFixedSeed = 42;

private:
    bool request(const QByteArray &line, const QString &during, SandboxProcess::Reply *reply);
    bool check(Outcome &outcome);
    bool time(Outcome &outcome);

    SandboxProcess &m_sandbox;
    const VerifierOptions &m_options;
    const Task &m_task;
    const std::atomic<bool> &m_cancel;
    Failure m_failure;
    ShapeConfig m_shape;
    PlacedBuffers m_candidateBuffers;
    PlacedBuffers m_referenceBuffers;
};

} // namespace kiln
