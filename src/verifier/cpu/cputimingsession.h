#pragma once

#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/engineclockbound.h"
#include "verifier/harness/freshinputs.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/timedcheck.h"
#include "verifier/harness/timingloop.h"
#include "verifier/harness/verifieroptions.h"

#include <QElapsedTimer>
#include <QPair>
#include <optional>

namespace kiln {

// The CPU backend's timed calls. The candidate runs in its sandbox; the baseline (the task's
// reference) in a sandbox of its own that never loads candidate code, so the candidate can
// neither read the reference's answers nor touch its timer. For every call the engine draws
// fresh inputs, gives both the same values, times each in its own process, and judges the
// candidate's outputs as they were when it returned against the reference's (TimedCheck): in
// full on the first calls and the final one, in sampled windows between, like the CUDA backend.
// One call per request: the next call's inputs do not exist before the last one returned.
class CpuTimingSession : public TimingSession
{
public:
    // What made the loop stop, when it was not the candidate's answer.
    struct RequestFailure
    {
        SandboxProcess::Reply reply;
        QString during;
        bool reference = false; // the baseline's sandbox, not the candidate's
    };

    CpuTimingSession(const VerifierOptions &options, const Task &task, const ShapeConfig &shape,
                     const FreshInputs &inputs, SandboxProcess &candidate,
                     SandboxProcess &reference, const std::atomic<bool> &cancel);

    // Buffers, argument sets and the timer calibration; false with failure() set.
    bool setUp();
    bool time(int first, int count, QList<Sample> &samples) override;
    bool finalCheck(int call) override;
    int batchLimit() const override { return 1; }

    const std::optional<RequestFailure> &failure() const { return m_failure; }
    QString wrongDetail() const { return m_wrongDetail; }
    const QList<QPair<QString, QString>> &flags() const { return m_flags; }

    // Measurements for the report and the plausibility checks.
    double timerOverheadNs() const { return m_overheadNs; }
    double engineMs() const { return m_engineMs; } // the candidate's requests, as seen here
    double explainedMs() const;                    // what its reported calls explain
    // Inside the timed calls, candidate's and baseline's together.
    double timedCallsMs() const { return m_reportedMs + m_baselineReportedMs; }
    double idleCpuMs() const { return m_idleCpuNs / 1e6; } // its threads' CPU between requests
    // The same for the baseline's process, which runs no candidate code: the sandbox's own share.
    double baselineIdleCpuMs() const { return m_baselineIdleCpuNs / 1e6; }
    double idleWallMs() const { return m_idleWallMs; }
    int scaleCalls() const { return m_scaleCalls; } // calls that needed the reference on |inputs|
    // The engine's clock around the candidate's requests against the times it reported.
    EngineClockBound &clockBound() { return m_clockBound; }
    const EngineClockBound &clockBound() const { return m_clockBound; }

private:
    struct Slot
    {
        PlacedBuffers candidate;
        QList<qint64> snapshots; // per output, in the candidate's buffer
        PlacedBuffers reference;
    };
    bool request(SandboxProcess &box, const QByteArray &line, const QString &during,
                 SandboxProcess::Reply *reply, bool reference);
    static QByteArray evictions(const PlacedBuffers &placed);
    static QByteArray poison(int call);
    void prepare(int call);
    void prepareScale(int call);
    bool call(int call, Sample &sample);
    bool inputsIntact(int call, bool full);
    TimedCheck::Outcome check(int call, bool full, bool scaled) const;
    bool judge(int call, bool full);
    // A baseline reply whose words from `first` on are its CPU clock, times, and CPU clock.
    void noteBaselineCpu(const SandboxProcess::Reply &reply, int first);
    double calibrateOverhead(SandboxProcess &box, bool reference);
    QByteArray preparingOps(int call) const;
    QByteArray timedOps(int call, bool candidate) const;
    bool candidateCall(int call, Sample &sample);

    static constexpr int kRequestCalibrations = 7;

    const VerifierOptions &m_options;
    const Task &m_task;
    ShapeConfig m_shape;
    const FreshInputs &m_inputs;
    SandboxProcess &m_candidate;
    SandboxProcess &m_reference;
    const std::atomic<bool> &m_cancel;

    BufferLayout m_candidateLayout;
    BufferLayout m_referenceLayout;
    Slot m_slots[2];
    std::optional<PlacedBuffers> m_scale; // reference on |inputs|, when the tolerance needs it
    std::optional<RequestFailure> m_failure;
    QString m_wrongDetail;
    QList<QPair<QString, QString>> m_flags;

    double m_overheadNs = 0.0;
    double m_referenceOverheadNs = 0.0;
    double m_requestOverheadMs = 0.0; // a candidate request's untimed part, calibrated
    double m_engineMs = 0.0;
    double m_reportedMs = 0.0;
    double m_baselineReportedMs = 0.0;
    int m_scaleCalls = 0;
    bool m_scaleLikely = false; // the last call needed the scale
    bool m_scaleReady = false;  // this call's scale was computed with its timed call
    int m_requests = 0;
    double m_idleCpuNs = 0.0;
    double m_idleWallMs = 0.0;
    std::optional<double> m_lastCpuNs; // at the end of the candidate's last request
    int m_candidateCpu = -1;           // where its calling thread last returned
    double m_baselineIdleCpuNs = 0.0;
    std::optional<double> m_lastBaselineCpuNs;
    QElapsedTimer m_sinceLastReply;
    EngineClockBound m_clockBound;
};

} // namespace kiln
