#pragma once

#include "bufferlayout.h"
#include "freshinputs.h"
#include "sandboxprocess.h"
#include "timedcheck.h"
#include "timingloop.h"
#include "verifieroptions.h"

#include <QJsonObject>
#include <QPair>
#include <functional>
#include <optional>

namespace kiln {

// The CUDA backend's timed calls. The candidate runs in its GPU sandbox; the baseline (the
// task's reference, and the library baseline where there is one) in a second GPU sandbox that
// never loads candidate code: a context of its own, so nothing the reference leaves on the
// device (its answers, freed scratch, blocks of a memory pool) is within the candidate's reach.
// Before every call each process draws the call's fresh inputs on the device from the run's
// tables (the `fresh` op: the same values FreshInputs draws on the host), so no two calls see
// the same inputs and both sides see the same ones. The first calls are read back and judged
// in full, later ones in sampled windows; a window of every input is checked against the host's
// own draw.
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
    CudaTimingSession(const VerifierOptions &options, const Task &task, const ShapeConfig &shape,
                      const FreshInputs &inputs, Processes processes, Send send,
                      Arguments arguments, bool library, quint64 secret);

    // Buffers, tables, argument sets and the timer calibration in both processes. False when a
    // request failed (the evaluation recorded it), with harnessFailure(), or with wrongDetail()
    // when the candidate's launch geometry does not fit the shape.
    bool setUp();
    bool time(int first, int count, QList<Sample> &samples) override;
    bool finalCheck(int call) override;
    // One call per slot in a batch: every call's answers have a place of their own in the
    // shared buffers until they are judged.
    int batchLimit() const override { return int(m_slots.size()); }
    static constexpr int kFullCalls = TimedCheck::kFullCalls; // read back and judged in full

    QString wrongDetail() const { return m_wrongDetail; }
    // Set when the harness, not the candidate, failed (no room on the device, a reply that
    // does not parse).
    QString harnessFailure() const { return m_harnessFailure; }
    const QList<QPair<QString, QString>> &flags() const { return m_flags; }
    double timerOverheadMs() const { return m_overheadMs; }
    const QList<double> &tails() const { return m_tails; }
    const QList<double> &gaps() const { return m_gaps; }
    QJsonObject phases() const; // where the stage's time went

private:
    struct Slot
    {
        PlacedBuffers call;                 // the candidate's inputs and outputs
        PlacedBuffers reference;            // in the baseline's process: the same inputs
        PlacedBuffers library;              // there too, outputs of its own
        std::optional<PlacedBuffers> scale; // there: the reference on |inputs|, when needed
    };
    // One process's side: its layout, its copy of the tables, its timer overhead.
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
    bool prepareSide(Side &side, bool baseline);
    bool sendArguments();
    bool calibrate(Side &side, bool baseline);
    QList<QPair<qint64, qint64>> windows(qint64 bytes, bool full, int call) const;
    QPair<qint64, qint64> inputWindow(qint64 bytes, int call) const;
    void readBack(const PlacedBuffers &placed, bool full, int call, QByteArray &ops) const;
    void drawInputs(const Side &side, const PlacedBuffers &placed, int call, QByteArray &ops) const;
    void candidateOps(int call, bool full, QByteArray &ops) const;
    void baselineOps(int call, bool full, QByteArray &ops) const;
    bool run(int first, int count, bool finalCall, QList<Call> &candidate, QList<Call> &baseline);
    bool judge(int call, bool full);
    bool inputsIntact(int call);
    int baselineCallsPerCall() const;

    const VerifierOptions &m_options;
    const Task &m_task;
    ShapeConfig m_shape;
    const FreshInputs &m_inputs;
    Side m_candidate;
    Side m_baseline;
    Send m_send;
    Arguments m_arguments;
    bool m_library;
    quint64 m_secret;

    QList<Slot> m_slots;
    QString m_wrongDetail;
    QString m_harnessFailure;
    QList<QPair<QString, QString>> m_flags;
    double m_overheadMs = 0.0;
    QList<double> m_tails;
    QList<double> m_gaps;
    double m_setupMs = 0.0;
    double m_batchMs = 0.0;
    double m_checkMs = 0.0;
};

} // namespace kiln
