#pragma once

#include "tasks/task.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/lintfacts.h"

#include <QByteArray>
#include <QList>

namespace kiln {

class NativeReference;

// Problem lint of Kiln's own tasks: their CPU reference, run in a kiln-sandbox on every
// correctness shape with four input sets each (the task's distributions in turn, from a fixed
// lint secret, so the result is reproducible). It measures whether outputs vary, whether fresh
// values of each input change them, whether an all-zero or constant answer or an input passed
// through would meet the task's tolerance (its scaled term included), and whether two calls
// agree. The redundant-op check needs an op graph: it applies to PyTorch problems only.
class NativeProblemLinter
{
public:
    NativeProblemLinter(const VerifierOptions &options, CompileCache &cache);

    bool lint(const Task &task, LintFacts *facts, QString *error);

    static constexpr quint64 kSecret = 0x4b696c6e4c696e74ull;
    static constexpr int kSeeds = 4;

private:
    struct Instance
    {
        QList<QByteArray> inputs;
        QList<QByteArray> expected;
        QList<QByteArray> scale; // the reference on |inputs| (tolerances with a scaled term)
    };
    using Instances = QList<QList<Instance>>; // [shape][seed]

    bool compute(NativeReference &reference, const Task &task, Instances &instances,
                 QString *error) const;
    void answerOutputs(const Task &task, const Instances &instances, LintFacts &facts) const;
    LintFacts::Output answerOutput(const Task &task, const Instances &instances, int parameter,
                                   double effectiveAbs) const;
    bool perturbInputs(NativeReference &reference, const Task &task, const Instances &instances,
                       LintFacts &facts, QString *error) const;
    bool checkDeterminism(NativeReference &reference, const Task &task, const Instances &instances,
                          LintFacts &facts, QString *error) const;

    const VerifierOptions &m_options;
    CompileCache &m_cache;
};

} // namespace kiln
