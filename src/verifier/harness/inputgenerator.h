#pragma once

#include "tasks/task.h"

#include <QByteArray>
#include <QList>

namespace kiln {

// Deterministic input values: the same (run secret, task, shape, seed) always gives the same
// buffers, on every machine (own generator and samplers, no std:: distributions whose output
// differs between standard libraries).
class InputGenerator
{
public:
    // Seed of one problem instance, derived from the secret per-run seed.
    static quint64 deriveSeed(quint64 runSecret, const QString &task, int shapeIndex,
                              int seedIndex);
    // The seed the visible correctness set derives from in place of the run's secret: a fixed,
    // public value, so a policy may be shown those inputs and what was wrong on them, and
    // nothing of the secret follows from them.
    static constexpr quint64 kVisibleSeed = 0x6b696c6e2d766973ull; // "kiln-vis"
    // n values of one distribution, written as f32 (or rounded to i32).
    static QByteArray generate(const ValueDistribution &distribution, qint64 count,
                               const QString &dtype, quint64 seed);
    // n values of a mixture: runs of 1 to 256 elements, each from one of `mixture` (chosen by
    // the seed), so that the few elements a kernel probes say nothing of the others. A mixture
    // of one is generate().
    static QByteArray generateMixed(const QList<ValueDistribution> &mixture, qint64 count,
                                    const QString &dtype, quint64 seed);
    // The same for timing: values farther from the distribution's centre than a bound that
    // depends on the distribution alone (its 1-in-10,000 level, from a fixed sample) are drawn
    // again. A heavy-tailed table then holds about the same extremes whatever the secret, so a
    // kernel whose speed depends on them (exp underflowing past a huge row maximum) sees the
    // same work in every evaluation; correctness inputs keep the whole tail.
    static QByteArray generateForTiming(const ValueDistribution &distribution, qint64 count,
                                        const QString &dtype, quint64 seed);
    // One buffer per task parameter, in signature order: inputs filled, outputs and scalars
    // left empty.
    static QList<QByteArray> inputs(const Task &task, const ShapeConfig &shape,
                                    const ValueDistribution &distribution, quint64 seed);
    // The same with every input that has no distribution of its own drawn from a mixture
    // (generateMixed); a mixture of one gives inputs()'s values.
    static QList<QByteArray> mixedInputs(const Task &task, const ShapeConfig &shape,
                                         const QList<ValueDistribution> &mixture, quint64 seed);
    // The same, generated in independent chunks on every core: for the GPU's timing shapes
    // (hundreds of millions of values). Deterministic, but its values differ from inputs().
    static QList<QByteArray> inputsParallel(const Task &task, const ShapeConfig &shape,
                                            const ValueDistribution &distribution, quint64 seed);
    // The distribution used for seed index k: every distribution of the task takes its turn.
    static ValueDistribution distributionFor(const Task &task, int seedIndex);
    // What instance (stream, seed index) of the hidden set draws from, chosen by the secret: the
    // task's distributions and, where it has several, all of them mixed take turns from a
    // starting point the secret sets for each stream, so which seed gets which is not known.
    static QList<ValueDistribution> hiddenDistributions(const Task &task, quint64 secret,
                                                        int stream, int seedIndex);
    // A mixture's name in reports: its one distribution's, or "mixed".
    static QString mixtureName(const QList<ValueDistribution> &mixture);
};

} // namespace kiln
