#pragma once

#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/engineclockbound.h"
#include "verifier/harness/freshinputs.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/timedcheck.h"
#include "verifier/harness/timingloop.h"
#include "verifier/harness/verifieroptions.h"

#include <QJsonObject>
#include <QPair>
#include <algorithm>
#include <functional>
#include <optional>

namespace kiln {

// The CUDA backend's timed calls. The candidate runs in its GPU sandbox; everything else in the
// GPU checker, the baseline's sandbox, which never loads candidate code: the run's input tables,
// the task's reference (and the library baseline where there is one), and the comparisons. The
// checker maps the candidate's device buffers through CUDA IPC; before every call it draws the
// call's fresh inputs on the device (freshvalues.h) into its own buffers and copies them into the
// candidate's, so the candidate never holds a table or a key, and after the call it compares
// every output in full with the reference's answer on the same inputs and every input with what
// it wrote, on the device (elementcheck.h). Only counts and the first mismatch cross back.
class CudaTimingSession : public TimingSession
{
public:
    // The evaluation's request channel to the candidate's (false) or the baseline's (true)
    // process: false when the request failed (the evaluation records why).
    using Send = std::function<bool(bool baseline, const QByteArray &line, int timeoutMs,
                                    const QString &during, SandboxProcess::Reply *reply)>;
    // The "args" (and, for the candidate, "dims") requests of one argument set; empty with
    // *error when the launch geometry does not fit the shape.
    using Arguments = std::function<QByteArray(int id, const PlacedBuffers &placed,
                                               bool candidateSlot, QString *error)>;
    struct Call
    {
        double eventMs = 0.0;
        double wallMs = 0.0;
        double tailMs = 0.0; // device busy after the harness stream finished
    };
    static std::optional<Call> parseCall(const QByteArray &word);

    struct Processes
    {
        SandboxProcess &candidate;
        SandboxProcess &baseline;
    };
    // `salt` is mixed into every timed call's input key: no two evaluations draw the same timed
    // inputs, so nothing a candidate judged before left on the device (an answer stashed in
    // memory the launcher does not scrub) answers this one's calls.
    CudaTimingSession(const VerifierOptions &options, const Task &task, const ShapeConfig &shape,
                      const FreshInputs &inputs, Processes processes, Send send,
                      Arguments arguments, bool library, quint64 salt);

    // Buffers, tables and argument sets in both processes. False when a request failed (the
    // evaluation recorded it), with harnessFailure(), or with wrongDetail() when the
    // candidate's launch geometry does not fit the shape. Nothing is timed yet, so the GPU need
    // not be quiet.
    bool setUp();
    // The timer overhead of both processes (events around nothing), with the GPU quiet as for
    // the calls it corrects.
    bool calibrateTimers();
    bool time(int first, int count, QList<Sample> &samples) override;
    bool finalCheck(int call) override;
    // One call per slot in a batch but one: every call's answers, and the answer of the call
    // before (a cached result is the previous call's), have a place of their own until judged.
    int batchLimit() const override { return std::max(1, int(m_slots.size()) - 1); }

    QString wrongDetail() const { return m_wrongDetail; }
    // Set when the harness, not the candidate, failed (no room on the device, a reply that
    // does not parse).
    QString harnessFailure() const { return m_harnessFailure; }
    const QList<QPair<QString, QString>> &flags() const { return m_flags; }
    double timerOverheadMs() const { return m_overheadMs; }
    const QList<double> &tails() const { return m_tails; }
    const QList<double> &gaps() const { return m_gaps; }
    // The engine's clock around the candidate's requests against the event times reported.
    EngineClockBound &clockBound() { return m_clockBound; }
    const EngineClockBound &clockBound() const { return m_clockBound; }
    QJsonObject phases() const; // where the stage's time went

private:
    struct Slot
    {
        PlacedBuffers call;                 // the candidate's inputs and outputs (its mirror)
        PlacedBuffers reference;            // in the checker: the same inputs, its answers
        PlacedBuffers library;              // there too, outputs of its own
        std::optional<PlacedBuffers> scale; // there: the reference on |inputs|, when needed
    };
    // One process's side: its layout and its timer overhead; the checker's copy of the tables.
    struct Side
    {
        SandboxProcess &box;
        BufferLayout layout{BufferLayout::kGpuAlignment};
        QList<QList<qint64>> tables; // [parameter][distribution] offsets in the device mirror
        double overheadMs = 0.0;
        double gapMs = 0.0;
    };
    const Slot &slotOf(int call) const { return m_slots[call % m_slots.size()]; }
    int slotCount(qint64 perSlotBytes) const;
    void placeSlots();
    bool prepareCandidate(QByteArray *handle);
    bool prepareChecker(const QByteArray &handle);
    bool sendArguments();
    bool calibrate(Side &side, bool baseline);
    bool calibrateSingleRequests();
    static constexpr int kCalibrationCalls = 21;
    static constexpr int kSingleCalibrations = 5;
    void prepareOps(int call, QByteArray &ops) const;
    void referenceOps(int call, QByteArray &ops) const;
    void checkOps(int call, QByteArray &ops) const;
    struct Times
    {
        QList<Call> candidate, reference, library;
    };
    bool run(int first, int count, bool finalCall, Times &times, QList<QByteArray> &checks);
    bool judge(int call, const QList<QByteArray> &checks, qsizetype &at);
    int baselineCallsPerCall() const;
    int checksPerCall() const;

    const VerifierOptions &m_options;
    const Task &m_task;
    ShapeConfig m_shape;
    const FreshInputs &m_inputs;
    Side m_candidate;
    Side m_baseline; // the GPU checker
    Send m_send;
    Arguments m_arguments;
    bool m_library;
    quint64 m_salt;

    QList<Slot> m_slots;
    QString m_wrongDetail;
    QString m_harnessFailure;
    QList<QPair<QString, QString>> m_flags;
    double m_overheadMs = 0.0;
    QList<double> m_tails;
    QList<double> m_gaps;
    double m_setupMs = 0.0;
    double m_calibrationMs = 0.0;
    double m_batchMs = 0.0;
    EngineClockBound m_clockBound;
};

} // namespace kiln
