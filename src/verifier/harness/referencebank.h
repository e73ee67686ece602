#pragma once

#include "tasks/task.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/verifieroptions.h"

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <memory>

namespace kiln {

class SandboxProcess;

// One problem instance and what the task's reference computes for it.
struct ReferenceInstance
{
    QString distribution;
    QList<QByteArray> inputs;   // per parameter (empty for outputs and scalars)
    QList<QByteArray> expected; // per parameter (outputs only)
    QList<QByteArray> scale;    // reference on |inputs|, only when the tolerance has a scaled term
};

// Everything one run's correctness checks compare against ([shape][seed]); timed calls get fresh
// inputs instead (FreshInputs), answered by the baseline in its own process.
struct RunReference
{
    QList<QList<ReferenceInstance>> correctness;
    ShapeConfig timingShape;
    QString referenceObject; // the compiled reference: the CPU baseline's sandbox loads it
};

// Expected outputs, computed by the reference in its own sandbox process (never in the
// candidate's), once per (task, run secret) and shared by all evaluations of the run.
class ReferenceBank
{
public:
    ReferenceBank(const VerifierOptions &options, CompileCache &cache);

    std::shared_ptr<const RunReference> get(const Task &task, quint64 runSecret, QString *error);
    // Whether the task's tolerance has a scaled term (then the reference also runs on |inputs|).
    static bool needsScale(const Task &task);
    // |values| for one buffer of dtype "f32" or "i32".
    static QByteArray absoluteValues(const QByteArray &values, const QString &dtype);
    // The same from `in` into `out` (which may be `in`), `bytes` of 32-bit values.
    static void absoluteValues(const char *in, char *out, qint64 bytes, bool integers);
    static ShapeConfig timingShape(const Task &task);

private:
    // `known`: a reference of the same task and secret whose shapes are a prefix of the task's.
    std::shared_ptr<RunReference> compute(const Task &task, quint64 runSecret, QString *error,
                                          const RunReference *known = nullptr);
    bool loadReference(SandboxProcess &sandbox, const Task &task, RunReference &reference,
                       QString *error);
    bool runReference(SandboxProcess &sandbox, const Task &task, const ShapeConfig &shape,
                      const QList<QByteArray> &inputs, QList<QByteArray> &outputs,
                      QString *failure) const;
    bool computeInstance(SandboxProcess &sandbox, const Task &task, const ShapeConfig &shape,
                         bool scaled, ReferenceInstance &out, QString *failure) const;

    const VerifierOptions &m_options;
    CompileCache &m_cache;
    QMutex m_mutex;
    QList<QPair<QString, std::shared_ptr<const RunReference>>> m_recent; // newest last
};

} // namespace kiln
