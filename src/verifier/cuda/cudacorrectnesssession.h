#pragma once

#include "verifier/harness/correctnesssession.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QList>
#include <functional>

namespace kiln {

// The CUDA backend's correctness calls, in the candidate's GPU sandbox: the shared buffer is
// the host side of a device allocation, uploaded before and read back after every call, and
// each call's reply tells how long the device stayed busy after the harness stream finished.
class CudaCorrectnessSession : public CorrectnessSession
{
public:
    // The evaluation's request channel to the candidate's process: false when the request
    // failed (the evaluation records why).
    using Send = std::function<bool(const QByteArray &line, int timeoutMs, const QString &during,
                                    SandboxProcess::Reply *reply)>;
    // The "args" (and "dims") requests of argument set 0 for a shape; empty with *error when
    // the launch geometry does not fit the shape.
    using Arguments = std::function<QByteArray(const PlacedBuffers &placed,
                                               const ShapeConfig &shape, QString *error)>;

    // The device busy longer than this after the harness stream: work on another stream.
    static constexpr double kSideStreamTailMs = 0.02;

    CudaCorrectnessSession(SandboxProcess &box, const VerifierOptions &options, Send send,
                           Arguments arguments);

    qint64 alignment() const override { return BufferLayout::kGpuAlignment; }
    SetUp setUp(CorrectnessLoop &loop, CorrectnessLoop::Shape &shape) override;
    bool call(const CorrectnessLoop::Shape &shape, const ReferenceInstance &instance,
              const QString &during) override;
    const char *memory() const override { return m_box.buffer(); }
    void judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call) override;
    void conclude(CorrectnessLoop &loop, QJsonObject &data) override;

private:
    SandboxProcess &m_box;
    const VerifierOptions &m_options;
    Send m_send;
    Arguments m_arguments;
    QList<double> m_tails; // per call, ms
};

} // namespace kiln
