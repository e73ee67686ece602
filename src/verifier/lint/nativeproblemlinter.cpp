#include "verifier/lint/nativeproblemlinter.h"

#include "verifier/harness/devicelock.h"
#include "verifier/harness/inputgenerator.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencebank.h"
#include "verifier/lint/nativereference.h"
#include "verifier/lint/problemlint.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace kiln {

namespace {

using Role = TaskParameter::Role;

bool meets(const QByteArray &got, const QByteArray &expected, const QByteArray &scale,
           const QString &dtype, const Tolerance &tolerance)
{
    if (got.size() != expected.size())
        return false;
    return OutputChecker::compare(got.constData(), expected.constData(),
                                  scale.isEmpty() ? nullptr : scale.constData(),
                                  expected.size() / 4, dtype, tolerance)
        .ok;
}

QByteArray filled(qint64 bytes, double value, const QString &dtype)
{
    QByteArray buffer(bytes, Qt::Uninitialized);
    const bool integer = dtype == QLatin1String("i32");
    const qint32 i = qint32(std::lround(value));
    const float f = float(value);
    for (qint64 at = 0; at + 4 <= bytes; at += 4)
        std::memcpy(buffer.data() + at, integer ? static_cast<const void *>(&i) : &f, 4);
    return buffer;
}

double valueAt(const QByteArray &buffer, qint64 i, bool integer)
{
    if (integer) {
        qint32 v;
        std::memcpy(&v, buffer.constData() + 4 * i, 4);
        return v;
    }
    float v;
    std::memcpy(&v, buffer.constData() + 4 * i, 4);
    return v;
}

// The median |value| over the non-zero finite elements of every instance, and the mean.
void magnitude(const QList<QByteArray> &buffers, bool integer, double *typical, double *mean)
{
    std::vector<double> nonzero;
    double sum = 0.0;
    qint64 count = 0;
    for (const QByteArray &buffer : buffers)
        for (qint64 i = 0; i < buffer.size() / 4; ++i) {
            const double v = valueAt(buffer, i, integer);
            if (!std::isfinite(v))
                continue;
            sum += v;
            ++count;
            if (v != 0.0)
                nonzero.push_back(std::fabs(v));
        }
    *mean = count ? sum / double(count) : 0.0;
    *typical = 0.0;
    if (!nonzero.empty()) {
        auto middle = nonzero.begin() + std::ptrdiff_t(nonzero.size() / 2);
        std::nth_element(nonzero.begin(), middle, nonzero.end());
        *typical = *middle;
    }
}

int strength(LintFacts::Change change)
{
    switch (change) {
    case LintFacts::Change::Changes:
        return 3;
    case LintFacts::Change::WithinTolerance:
        return 2;
    case LintFacts::Change::None:
        return 1;
    case LintFacts::Change::NotPerturbed:
        break;
    }
    return 0;
}

// What new outputs are to the reference's: the same bits, within the tolerance, or changed.
LintFacts::Change compareOutputs(const Task &task, const QList<QByteArray> &got,
                                 const QList<QByteArray> &expected, const QList<QByteArray> &scale)
{
    LintFacts::Change change = LintFacts::Change::None;
    for (int p = 0; p < task.parameters.size(); ++p) {
        if (task.parameters[p].role != Role::Output || got[p] == expected[p])
            continue;
        const QString &dtype = task.parameters[p].dtype;
        if (!meets(got[p], expected[p], scale.value(p), dtype, task.tolerance(dtype)))
            return LintFacts::Change::Changes;
        change = LintFacts::Change::WithinTolerance;
    }
    return change;
}

} // namespace

NativeProblemLinter::NativeProblemLinter(const VerifierOptions &options, CompileCache &cache)
    : m_options(options), m_cache(cache)
{
}

bool NativeProblemLinter::lint(const Task &task, LintFacts *facts, QString *error)
{
    // Reference calls are correctness work: they must not disturb a timing on this machine.
    const DeviceLock lock(QStringLiteral("cpu"), DeviceLock::Mode::Shared);
    NativeReference reference(m_options, m_cache, task);
    if (!reference.start(error))
        return false;
    Instances instances;
    if (!compute(reference, task, instances, error))
        return false;
    *facts = LintFacts{};
    facts->seeds = kSeeds;
    answerOutputs(task, instances, *facts);
    // Fresh inputs and repeated calls are judged at the tolerance the verifier will apply.
    Task judged = task;
    const bool trivial =
        std::any_of(facts->outputs.cbegin(), facts->outputs.cend(), [](const LintFacts::Output &o) {
            return o.zeros.declared || o.constant.declared;
        });
    if (trivial && judged.tolerances.contains(QStringLiteral("f32")))
        judged.tolerances[QStringLiteral("f32")].abs =
            std::min(judged.tolerances[QStringLiteral("f32")].abs, facts->effectiveAbs);
    return perturbInputs(reference, judged, instances, *facts, error) &&
           checkDeterminism(reference, judged, instances, *facts, error);
}

bool NativeProblemLinter::compute(NativeReference &reference, const Task &task,
                                  Instances &instances, QString *error) const
{
    const bool scaled = ReferenceBank::needsScale(task);
    instances = Instances(task.correctnessShapes.size(), QList<Instance>(kSeeds));
    for (int s = 0; s < task.correctnessShapes.size(); ++s) {
        const ShapeConfig &shape = task.correctnessShapes[s];
        for (int k = 0; k < kSeeds; ++k) {
            Instance &instance = instances[s][k];
            instance.inputs =
                InputGenerator::inputs(task, shape, InputGenerator::distributionFor(task, k),
                                       InputGenerator::deriveSeed(kSecret, task.name, s, k));
            if (!reference.run(shape, instance.inputs, instance.expected, error))
                return false;
            if (!scaled)
                continue;
            QList<QByteArray> magnitudes = instance.inputs;
            for (int p = 0; p < magnitudes.size(); ++p)
                magnitudes[p] =
                    ReferenceBank::absoluteValues(magnitudes[p], task.parameters[p].dtype);
            if (!reference.run(shape, magnitudes, instance.scale, error))
                return false;
        }
    }
    return true;
}

void NativeProblemLinter::answerOutputs(const Task &task, const Instances &instances,
                                        LintFacts &facts) const
{
    QList<double> typicals;
    for (int p = 0; p < task.parameters.size(); ++p) {
        if (task.parameters[p].role != Role::Output)
            continue;
        QList<QByteArray> all;
        for (const QList<Instance> &shape : instances)
            for (const Instance &instance : shape)
                all << instance.expected[p];
        const bool integer = task.parameters[p].dtype == QLatin1String("i32");
        double typical = 0.0, mean = 0.0;
        magnitude(all, integer, &typical, &mean);
        if (!integer) // compared exactly: their magnitude says nothing of an atol
            typicals << typical;
    }
    facts.effectiveAbs =
        ProblemLint::magnitudeAbs(task.tolerance(QStringLiteral("f32")).abs, typicals);
    for (int p = 0; p < task.parameters.size(); ++p)
        if (task.parameters[p].role == Role::Output)
            facts.outputs << answerOutput(task, instances, p, facts.effectiveAbs);
}

// One output against the trivial answers on every instance, at both tolerances.
LintFacts::Output NativeProblemLinter::answerOutput(const Task &task, const Instances &instances,
                                                    int parameter, double effectiveAbs) const
{
    const QString &dtype = task.parameters[parameter].dtype;
    const Tolerance declared = task.tolerance(dtype);
    Tolerance effective = declared;
    effective.abs = std::min(declared.abs, effectiveAbs);
    LintFacts::Output output;
    output.name = task.parameters[parameter].name;
    output.integer = dtype == QLatin1String("i32");
    QList<QByteArray> all;
    for (const QList<Instance> &shape : instances)
        for (const Instance &instance : shape)
            all << instance.expected[parameter];
    magnitude(all, dtype == QLatin1String("i32"), &output.typical, &output.mean);
    // Inputs of the output's dtype and size at every shape could be handed back unchanged.
    QList<int> sameSize;
    for (int p = 0; p < task.parameters.size(); ++p)
        if (task.parameters[p].role == Role::Input && task.parameters[p].dtype == dtype)
            sameSize << p;
    output.constantAcrossSeeds = true;
    output.zeros = output.constant = {true, true};
    QList<LintFacts::Pass> passes(sameSize.size(), LintFacts::Pass{true, true});
    for (const QList<Instance> &shape : instances)
        for (const Instance &instance : shape) {
            const QByteArray &want = instance.expected[parameter];
            const QByteArray &scale = instance.scale.value(parameter);
            output.constantAcrossSeeds &= want == shape.first().expected[parameter];
            const std::pair<LintFacts::Pass *, double> answers[] = {
                {&output.zeros, 0.0}, {&output.constant, output.mean}};
            for (const auto &[answer, value] : answers) {
                const QByteArray got = filled(want.size(), value, dtype);
                answer->declared &= meets(got, want, scale, dtype, declared);
                answer->effective &= meets(got, want, scale, dtype, effective);
            }
            for (int i = 0; i < sameSize.size(); ++i) {
                const QByteArray &got = instance.inputs[sameSize[i]];
                passes[i].declared &= meets(got, want, scale, dtype, declared);
                passes[i].effective &= meets(got, want, scale, dtype, effective);
            }
        }
    for (int i = 0; i < sameSize.size(); ++i)
        output.inputs.append({task.parameters[sameSize[i]].name, passes[i]});
    return output;
}

// Each input in turn gets fresh values (the others kept) on every shape's first instance.
bool NativeProblemLinter::perturbInputs(NativeReference &reference, const Task &task,
                                        const Instances &instances, LintFacts &facts,
                                        QString *error) const
{
    for (int p = 0; p < task.parameters.size(); ++p) {
        if (task.parameters[p].role != Role::Input)
            continue;
        LintFacts::Change strongest = LintFacts::Change::NotPerturbed;
        for (int s = 0; s < task.correctnessShapes.size(); ++s) {
            const ShapeConfig &shape = task.correctnessShapes[s];
            const Instance &base = instances[s][0];
            QList<QByteArray> inputs = base.inputs;
            inputs[p] =
                InputGenerator::inputs(task, shape, InputGenerator::distributionFor(task, 0),
                                       InputGenerator::deriveSeed(~kSecret, task.name, s, 0))[p];
            if (inputs[p] == base.inputs[p])
                continue;
            QList<QByteArray> outputs;
            if (!reference.run(shape, inputs, outputs, error))
                return false;
            const LintFacts::Change change =
                compareOutputs(task, outputs, base.expected, base.scale);
            if (strength(change) > strength(strongest))
                strongest = change;
        }
        facts.inputs.append({task.parameters[p].name, strongest});
    }
    return true;
}

bool NativeProblemLinter::checkDeterminism(NativeReference &reference, const Task &task,
                                           const Instances &instances, LintFacts &facts,
                                           QString *error) const
{
    facts.nondeterminism = QStringLiteral("none");
    for (int s = 0; s < task.correctnessShapes.size(); ++s) {
        const Instance &base = instances[s][0];
        QList<QByteArray> again;
        if (!reference.run(task.correctnessShapes[s], base.inputs, again, error))
            return false;
        const LintFacts::Change change = compareOutputs(task, again, base.expected, base.scale);
        if (change == LintFacts::Change::Changes)
            facts.nondeterminism = QStringLiteral("beyond_tolerance");
        else if (change == LintFacts::Change::WithinTolerance &&
                 facts.nondeterminism == QLatin1String("none"))
            facts.nondeterminism = QStringLiteral("within_tolerance");
    }
    return true;
}

} // namespace kiln
