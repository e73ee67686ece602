#pragma once

#include "verifier/lint/problemlint.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace kiln {

// What the run launcher says about the chosen tasks' problem lint (docs/tasks.md, "Problem
// lint"): each finding, the magnitude-aware tolerance the verifier will apply, a failed lint,
// and how many chosen tasks were never linted. Advice only: a finding never refuses a start.
class LintNotes
{
public:
    static constexpr int kMaxLines = 8; // then "... and N more"

    // `lints`: the kept lint of each task by name (a task without one counts as not linted).
    static QStringList lines(const QStringList &tasks, const QHash<QString, ProblemLint> &lints);
};

} // namespace kiln
