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
    // n values of one distribution, written as f32 (or rounded to i32).
    static QByteArray generate(const ValueDistribution &distribution, qint64 count,
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
    // The same, generated in independent chunks on every core: for the GPU's timing shapes
    // (hundreds of millions of values). Deterministic, but its values differ from inputs().
    static QList<QByteArray> inputsParallel(const Task &task, const ShapeConfig &shape,
                                            const ValueDistribution &distribution, quint64 seed);
    // The distribution used for seed index k: every distribution of the task takes its turn.
    static ValueDistribution distributionFor(const Task &task, int seedIndex);
};

} // namespace kiln
