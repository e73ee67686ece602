#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace kiln {

// What problem lint measured on a task's reference, before any judgement: the native linter
// (Kiln's own tasks, on the CPU backend) and the PyTorch worker (KernelBench problems, the
// "lint" request of kiln_torch_worker.py) both produce it; ProblemLint turns it into findings.
struct LintFacts
{
    // Whether a trivial answer met the tolerance on every input set: at the declared
    // tolerance, and with the magnitude-aware absolute tolerance (effectiveAbs).
    struct Pass
    {
        bool declared = false;
        bool effective = false;
    };
    // An input returned as an output (same number of elements).
    struct PassedInput
    {
        QString input;
        Pass pass;
    };
    struct Output
    {
        QString name;
        bool integer = false; // compared exactly: no atol applies
        double typical = 0.0; // median |reference| over its non-zero elements
        double mean = 0.0;    // the constant answer tried
        bool constantAcrossSeeds = false;
        Pass zeros;
        Pass constant;
        QList<PassedInput> inputs;
    };
    // What fresh values of one input (the others kept) did to the outputs.
    enum class Change
    {
        Changes,
        WithinTolerance, // outputs moved, but by less than the tolerance
        None,            // every output bit for bit the same
        NotPerturbed     // no fresh values to give (a constant input, or not a tensor)
    };
    struct Input
    {
        QString name;
        Change change = Change::Changes;
    };
    // An op of a PyTorch forward that changes nothing, or whose removal keeps the outputs
    // within the tolerance.
    struct Op
    {
        int index = 0; // its place among the forward's torch calls
        QString name;
        QString after; // the op that made its input, when known
        bool noOp = false;
    };

    int seeds = 0;
    QString nondeterminism = QStringLiteral("none"); // none | within_tolerance | beyond_tolerance
    double effectiveAbs = 0.0; // the magnitude-aware absolute tolerance the answers were tried at
    QList<Output> outputs;
    QList<Input> inputs;
    QList<Op> ops;
    // How far the op check went ("12 of 12 ops tried"), or why it did not run; empty where it
    // does not apply (C references).
    QString opsCoverage;

    // The worker's reply document.
    static LintFacts fromWorkerJson(const QJsonObject &document);
};

} // namespace kiln
