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

// One shape of the correctness check, with an instance per seed.
struct CheckedShape
{
    ShapeConfig config;
    // Of the hidden set: inputs (and, for drawn shapes, the sizes) from the run's secret. What
    // goes wrong there is never shown to a policy (docs/verifier.md).
    bool hidden = false;
    bool drawn = false; // sizes drawn from the task's ShapeRange, not declared
    int stream = 0;     // the shape index its seeds derive from (InputGenerator::deriveSeed)
    QList<ReferenceInstance> instances;
};

// Everything one run's correctness checks compare against: the visible set (the task's
// correctness shapes, inputs from a public seed) first, then the hidden set (the same shapes
// and kHiddenShapes shapes drawn from the task's range, inputs and distributions from the
// secret). Timed calls get fresh inputs instead (FreshInputs), answered by the baseline in its
// own process.
struct RunReference
{
    QList<CheckedShape> shapes;
    ShapeConfig timingShape;
    QString referenceObject; // the compiled reference: the CPU baseline's sandbox loads it

    int count(bool hidden, bool drawn) const; // shapes of one kind
};

// Expected outputs, computed by the reference in its own sandbox process (never in the
// candidate's), once per (task, run secret) and shared by all evaluations of the run.
class ReferenceBank
{
public:
    ReferenceBank(const VerifierOptions &options, CompileCache &cache);

    // Shapes drawn from the task's range into the hidden set, besides its declared ones.
    static constexpr int kHiddenShapes = 4;
    // The stream of drawn shape d, apart from every declared shape's (and FreshInputs' tables).
    static constexpr int kDrawnStream = 1000;

    std::shared_ptr<const RunReference> get(const Task &task, quint64 runSecret, QString *error);
    // The shapes of a run's correctness check, in order, without their instances.
    static QList<CheckedShape> plan(const Task &task, quint64 runSecret);
    // The inputs of instance `seed` of `shape`: the visible set's from the public seed, the
    // hidden set's from the secret; `distribution` gets their name.
    static QList<QByteArray> inputsOf(const Task &task, quint64 runSecret,
                                      const CheckedShape &shape, int seed, QString *distribution);
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
    bool computeInstance(SandboxProcess &sandbox, const Task &task, const ShapeConfig &shape,
                         bool scaled, ReferenceInstance &out, QString *failure) const;

    const VerifierOptions &m_options;
    CompileCache &m_cache;
    QMutex m_mutex;
    QList<QPair<QString, std::shared_ptr<const RunReference>>> m_recent; // newest last
};

} // namespace kiln
