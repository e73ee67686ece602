#pragma once

#include "verifier/harness/correctnesssession.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QList>
#include <atomic>
#include <functional>

namespace kiln {

// The CPU backend's correctness calls, in the candidate's sandbox: each output is copied aside
// the moment the call returns (that copy is judged, and the output must not change after it),
// and after a shape's calls a probe looks for threads still burning CPU.
class CpuCorrectnessSession : public CorrectnessSession
{
public:
    // A request that did not answer "ok": the reply and what was being done.
    using RequestFailed = std::function<void(const SandboxProcess::Reply &, const QString &)>;

    CpuCorrectnessSession(SandboxProcess &sandbox, const VerifierOptions &options, const Task &task,
                          const std::atomic<bool> &cancel, RequestFailed requestFailed);

    qint64 alignment() const override { return BufferLayout::kAlignment; }
    SetUp setUp(CorrectnessLoop &loop, CorrectnessLoop::Shape &shape) override;
    bool call(const CorrectnessLoop::Shape &shape, const ReferenceInstance &instance,
              const QString &during) override;
    const char *memory() const override { return m_sandbox.buffer(); }
    void judge(CorrectnessLoop &loop, const CorrectnessLoop::Call &call) override;
    bool finishShape(CorrectnessLoop &loop) override;
    bool halted(const CorrectnessLoop &loop) const override;
    void conclude(CorrectnessLoop &loop, QJsonObject &data) override;

private:
    bool request(const QByteArray &line, const QString &during, SandboxProcess::Reply *reply);
    bool poisonedCall(const QString &during, SandboxProcess::Reply *reply);
    QList<QByteArray> snapshots(const CorrectnessLoop::Shape &shape) const;
    QString poisonDependence(const CorrectnessLoop::Shape &shape,
                             const QList<QByteArray> &first) const;

    SandboxProcess &m_sandbox;
    const VerifierOptions &m_options;
    const Task &m_task;
    const std::atomic<bool> &m_cancel;
    RequestFailed m_requestFailed;
    QList<qint64> m_snapshots; // per output of the shape, where its copy at return goes
    QByteArray m_call;         // the shape's call request, snapshots included
    int m_maxThreads = 0;
    int m_calls = 0;            // calls so far: which poison the next one runs under
    bool m_rerunDone = false;   // the shape's first call ran under both poisons
    QString m_poisonDependence; // what that showed, when the outputs differed
};

} // namespace kiln
