#pragma once

#include "tasks/task.h"
#include "verifier/torch/torchprocess.h"

#include <QJsonArray>
#include <QJsonObject>
#include <optional>

namespace kiln {

// The reference process of one KernelBench problem: the problem's Model built under a seed,
// its inputs drawn with get_inputs(), its outputs, and its eager and torch.compile timings.
// Kept between candidates, so torch.compile runs once per problem; only Kiln's own worker
// code and the problem's source run in it.
class TorchReference
{
public:
    TorchReference(const VerifierOptions &options, const TorchEnvironment &environment,
                   const Task &task);

    // Started and loaded; false (with why) when the problem itself fails.
    bool ensureReady(QString *error);
    // torch.compile of the Model, once; false when torch.compile is unavailable (note says why).
    bool ensureCompiled(QString *note);

    TorchProcess &process() { return *m_process; }
    QString taskName() const { return m_taskName; }
    QString source() const { return m_source; }
    quint64 initSeed() const { return m_initSeed; }
    QByteArray initInputs() const { return m_initInputs; } // compact JSON array
    bool running();
    // The bytes of one set of the problem's inputs and outputs, once an evaluation has seen
    // one (0 before): what TorchEvaluation plans the GPU's memory with.
    qint64 setBytes() const { return m_setBytes; }
    void noteSetBytes(qint64 bytes) { m_setBytes = bytes; }
    // The ops and dtypes its forward runs (the worker's "dtypes"), once an audit asked: the
    // same for every candidate of the problem, so asked once per process.
    std::optional<QJsonObject> &opRecord() { return m_opRecord; }

private:
    const VerifierOptions &m_options;
    const TorchEnvironment &m_environment;
    QString m_taskName;
    QString m_source;
    quint64 m_initSeed = 0;
    QByteArray m_initInputs;
    bool m_loaded = false;
    int m_compileState = 0; // 0 not tried, 1 available, -1 unavailable
    QString m_compileNote;
    qint64 m_setBytes = 0;
    std::optional<QJsonObject> m_opRecord;
    std::unique_ptr<TorchProcess> m_process;
};

} // namespace kiln
