#pragma once

#include "tasks/task.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/lintfacts.h"
#include "verifier/torch/torchenvironment.h"
#include "verifier/torch/torchprocess.h"

#include <memory>

namespace kiln {

// Problem lint of KernelBench problems: the worker's "lint" request (kiln_torch_worker.py,
// class ProblemLint) in a kiln-torch-sandbox of the reference role, which runs only the
// problem's own code. One process serves problem after problem (each module under a name of
// its own) and is started again when one kills it. The GPU is held shared, as correctness work
// is, so a timing elsewhere on it is not disturbed.
class TorchProblemLinter
{
public:
    TorchProblemLinter(const VerifierOptions &options, const TorchEnvironment &environment);
    ~TorchProblemLinter();

    bool lint(const Task &task, LintFacts *facts, QString *error);

    static constexpr quint64 kSeed = 20260101; // the Model's weights and the input sets
    static constexpr int kLintTimeoutMs = 1800000;
    static constexpr int kOpBudgetSeconds = 120; // removal trials of the redundant-op check

private:
    bool ensureStarted(QString *error);
    QString lockName() const;

    const VerifierOptions &m_options;
    const TorchEnvironment &m_environment;
    std::unique_ptr<TorchProcess> m_process;
    int m_modules = 0;
};

} // namespace kiln
