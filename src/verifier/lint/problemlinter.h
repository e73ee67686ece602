#pragma once

#include "tasks/task.h"
#include "verifier/harness/compilecache.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/lintcache.h"
#include "verifier/lint/problemlint.h"
#include "verifier/torch/torchenvironment.h"

#include <memory>
#include <optional>

namespace kiln {

class TorchProblemLinter;

// Problem lint of any task (docs/tasks.md, "Problem lint"): Kiln's own tasks through their CPU
// reference, KernelBench problems through the PyTorch worker. Each task is linted once and the
// result kept (LintCache); a KernelBench problem on a machine without torch is "not linted",
// never an error. Not thread-safe: one caller at a time.
class ProblemLinter
{
public:
    explicit ProblemLinter(VerifierOptions options);
    ~ProblemLinter();

    const LintCache &cache() const { return m_cache; }
    // The stored lint of a task, else a "not linted" result that says how to lint it.
    ProblemLint stored(const Task &task) const { return m_cache.stored(task); }
    // The stored lint, else the task linted now (and kept when it could be linted); `force`
    // lints again even when a result is stored.
    ProblemLint lint(const Task &task, bool force = false);
    // Why KernelBench problems cannot be linted here ("no torch (...)"); empty when they can.
    QString torchUnavailable();

private:
    ProblemLint lintNative(const Task &task);
    ProblemLint lintTorch(const Task &task);

    VerifierOptions m_options;
    CompileCache m_compileCache;
    LintCache m_cache;
    std::optional<TorchEnvironment> m_torch;
    std::unique_ptr<TorchProblemLinter> m_torchLinter;
};

} // namespace kiln
