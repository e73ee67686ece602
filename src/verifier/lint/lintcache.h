#pragma once

#include "tasks/task.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/problemlint.h"

#include <QString>
#include <optional>

namespace kiln {

// Where problem lint results are kept, so each task is linted once: an imported KernelBench
// problem keeps its own `lint.json` beside its task.json; every other task (the built-in ones
// are read-only resources) has `<name>-<hash>.json` in the lint folder beside the compile
// cache (~/.cache/kiln/lint). A stored result counts only for the task hash and lint version
// it was computed for.
class LintCache
{
public:
    explicit LintCache(QString directory);
    // The lint folder beside options.cacheDirectory.
    static LintCache forOptions(const VerifierOptions &options);

    QString directory() const { return m_directory; }
    // The stored lint of the task, when it is current; nullopt otherwise.
    std::optional<ProblemLint> find(const Task &task) const;
    // The stored lint, else a "not linted" result that says how to lint the task.
    ProblemLint stored(const Task &task) const;
    // Keeps a linted result (others are not kept: they depend on this machine); false with
    // why when it cannot be written.
    bool store(const Task &task, const ProblemLint &lint, QString *error) const;
    // Where store() writes for this task.
    QString pathFor(const Task &task) const;
    // The task with the stored lint's tolerance applied (the task itself when none).
    Task applied(const Task &task) const;

private:
    static QString folderFile(const Task &task);
    QString cacheFile(const Task &task) const;

    QString m_directory;
};

} // namespace kiln
