#include "verifier/harness/referencebank.h"

#include "tasks/shaperange.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/inputgenerator.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencerunner.h"
#include "verifier/harness/sandboxcompiler.h"
#include "verifier/harness/sandboxprocess.h"

#include <QTemporaryDir>
#include <QtConcurrent/QtConcurrentMap>
#include <cmath>
#include <cstring>

namespace kiln {

namespace {

constexpr int kKeptRuns = 6;

// An instance the reference has yet to answer.
struct PendingInstance
{
    CheckedShape *shape;
    int seed;
};

// The shape of `known` with the same kind, stream and sizes (whose instances are the same), or
// null.
const CheckedShape *sameShape(const RunReference *known, const CheckedShape &shape)
{
    if (!known)
        return nullptr;
    for (const CheckedShape &k : known->shapes)
        if (k.hidden == shape.hidden && k.drawn == shape.drawn && k.stream == shape.stream &&
            k.config.sizes == shape.config.sizes)
            return &k;
    return nullptr;
}

// Lays out reference.shapes (ReferenceBank::plan) with `seeds` instances each: shapes that
// `known` holds are copied, the inputs of the others generated (in parallel) and returned for
// the reference to answer.
QList<PendingInstance> generateInputs(const Task &task, quint64 runSecret, int seeds,
                                      RunReference &reference, const RunReference *known)
{
    QList<PendingInstance> instances;
    reference.shapes = ReferenceBank::plan(task, runSecret);
    for (CheckedShape &shape : reference.shapes) {
        // An instance depends only on (secret, task, kind, stream, sizes, seed).
        const CheckedShape *same = sameShape(known, shape);
        if (same && same->instances.size() == seeds) {
            shape.instances = same->instances;
            continue;
        }
        shape.instances = QList<ReferenceInstance>(seeds);
        for (int k = 0; k < seeds; ++k)
            instances.append({&shape, k});
    }
    QtConcurrent::blockingMap(instances, [&task, runSecret](const PendingInstance &pending) {
        ReferenceInstance &out = pending.shape->instances[pending.seed];
        out.inputs = ReferenceBank::inputsOf(task, runSecret, *pending.shape, pending.seed,
                                             &out.distribution);
    });
    return instances;
}

} // namespace

int RunReference::count(bool hidden, bool drawn) const
{
    int n = 0;
    for (const CheckedShape &shape : shapes)
        n += shape.hidden == hidden && shape.drawn == drawn ? 1 : 0;
    return n;
}

QList<CheckedShape> ReferenceBank::plan(const Task &task, quint64 runSecret)
{
    QList<CheckedShape> shapes;
    for (const bool hidden : {false, true})
        for (int s = 0; s < task.correctnessShapes.size(); ++s)
            shapes.append({task.correctnessShapes[s], hidden, false, s, {}});
    const std::optional<ShapeRange> range = ShapeRange::of(task);
    if (!range)
        return shapes;
    const quint64 seed = InputGenerator::deriveSeed(runSecret, task.name, kDrawnStream - 1, 0);
    const QList<ShapeConfig> drawn = range->draw(task, seed, kHiddenShapes);
    for (int d = 0; d < drawn.size(); ++d)
        shapes.append({drawn[d], true, true, kDrawnStream + d, {}});
    return shapes;
}

QList<QByteArray> ReferenceBank::inputsOf(const Task &task, quint64 runSecret,
                                          const CheckedShape &shape, int seed,
                                          QString *distribution)
{
    const QList<ValueDistribution> mixture =
        shape.hidden ? InputGenerator::hiddenDistributions(task, runSecret, shape.stream, seed)
                     : QList<ValueDistribution>{InputGenerator::distributionFor(task, seed)};
    *distribution = InputGenerator::mixtureName(mixture);
    const quint64 from = shape.hidden ? runSecret : InputGenerator::kVisibleSeed;
    return InputGenerator::mixedInputs(
        task, shape.config, mixture,
        InputGenerator::deriveSeed(from, task.name, shape.stream, seed));
}

ReferenceBank::ReferenceBank(const VerifierOptions &options, CompileCache &cache)
    : m_options(options), m_cache(cache)
{
}

bool ReferenceBank::needsScale(const Task &task)
{
    for (const Tolerance &tolerance : task.tolerances) {
        if (tolerance.scaled > 0.0)
            return true;
    }
    return false;
}

QByteArray ReferenceBank::absoluteValues(const QByteArray &values, const QString &dtype)
{
    QByteArray result(values.size(), Qt::Uninitialized);
    absoluteValues(values.constData(), result.data(), values.size(), dtype == QLatin1String("i32"));
    return result;
}

void ReferenceBank::absoluteValues(const char *in, char *out, qint64 bytes, bool integers)
{
    for (qint64 i = 0; i + 4 <= bytes; i += 4) {
        quint32 word;
        std::memcpy(&word, in + i, 4);
        if (integers) {
            const qint32 v = qint32(word);
            word = quint32(v < 0 ? -v : v);
        } else {
            word &= 0x7fffffffu; // clear the sign bit
        }
        std::memcpy(out + i, &word, 4);
    }
}

ShapeConfig ReferenceBank::timingShape(const Task &task)
{
    if (task.timingShapes.contains(Backend::Cpu))
        return task.timingShapes.value(Backend::Cpu);
    return task.correctnessShapes.isEmpty() ? ShapeConfig() : task.correctnessShapes.last();
}

std::shared_ptr<const RunReference> ReferenceBank::get(const Task &task, quint64 runSecret,
                                                       QString *error)
{
    // The shapes are part of the key: the agents strategy's tester adds some to one candidate.
    QString key = task.name + QLatin1Char('/') + QString::number(runSecret);
    for (const ShapeConfig &shape : task.correctnessShapes)
        key += QLatin1Char('/') + task.shapeLabel(shape);
    // One computation at a time: concurrent evaluations of a new run wait for the first.
    QMutexLocker lock(&m_mutex);
    std::shared_ptr<const RunReference> prefix;
    for (const auto &[k, reference] : m_recent) {
        if (k == key)
            return reference;
        if (key.startsWith(k + QLatin1Char('/')))
            prefix = reference;
    }
    // A task with shapes added to a cached one (one candidate's tester shapes) reuses the cached
    // instances, computes only the added shapes, and is not kept: it would push the run's own out.
    std::shared_ptr<RunReference> reference = compute(task, runSecret, error, prefix.get());
    if (!reference || prefix)
        return reference;
    m_recent.append({key, reference});
    while (m_recent.size() > kKeptRuns)
        m_recent.removeFirst();
    return reference;
}

// The expected outputs of one instance, and the reference on |inputs| when the tolerance has a
// scaled term.
bool ReferenceBank::computeInstance(SandboxProcess &sandbox, const Task &task,
                                    const ShapeConfig &shape, bool scaled, ReferenceInstance &out,
                                    QString *failure) const
{
    if (!ReferenceRunner::run(sandbox, m_options, task, shape, out.inputs, out.expected, failure))
        return false;
    if (scaled) {
        QList<QByteArray> magnitudes = out.inputs;
        for (int p = 0; p < magnitudes.size(); ++p)
            magnitudes[p] = absoluteValues(magnitudes[p], task.parameters[p].dtype);
        if (!ReferenceRunner::run(sandbox, m_options, task, shape, magnitudes, out.scale, failure))
            return false;
    }
    return true;
}

std::shared_ptr<RunReference> ReferenceBank::compute(const Task &task, quint64 runSecret,
                                                     QString *error, const RunReference *known)
{
    auto reference = std::make_shared<RunReference>();
    QTemporaryDir work(m_options.workRoot + QStringLiteral("/kiln-reference-XXXXXX"));
    SandboxProcess sandbox(m_options.sandbox);
    if (!work.isValid() || !sandbox.start(work.path(), 1 << 20, m_options.startTimeoutMs, error))
        return nullptr;
    reference->referenceObject = ReferenceRunner::load(sandbox, m_cache, m_options, task, error);
    if (reference->referenceObject.isEmpty())
        return nullptr;
    const bool scaled = needsScale(task);

    // Inputs first, generated in parallel (the costly part for large shapes), then the
    // reference runs them one by one.
    const int seeds = qMax(3, m_options.seedsPerShape);
    reference->timingShape = timingShape(task);
    const QList<PendingInstance> instances =
        generateInputs(task, runSecret, seeds, *reference, known);
    QString failure;
    for (const PendingInstance &pending : instances) {
        if (!computeInstance(sandbox, task, pending.shape->config, scaled,
                             pending.shape->instances[pending.seed], &failure)) {
            *error = QStringLiteral("the reference failed: %1").arg(failure);
            return nullptr;
        }
    }
    sandbox.request("quit", 1000);
    return reference;
}

} // namespace kiln
