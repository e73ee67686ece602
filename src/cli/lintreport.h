#pragma once

#include "verifier/lint/problemlint.h"

#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace kiln {

// Problem lint over many tasks, as `kiln-cli lint-tasks` and `kiln-cli import-kernelbench`
// print it: one line per finding (tasks that could not be linted for the same reason share
// one line), and a count of tasks per finding class.
class LintReport
{
public:
    void add(const QString &task, const ProblemLint &lint);

    // "kb1_019_relu: zeros_pass output 0: ..." for one task's lint (none when it is clean).
    static QStringList taskLines(const QString &task, const ProblemLint &lint);
    // The tasks that were not linted, grouped by why: "12 tasks not linted: no torch (...)".
    QStringList notLintedLines() const;
    // "270 tasks: 260 linted, 41 with findings, 10 not linted, 0 failed. By class: ..."
    QString summary() const;
    // {"tasks":[{"task","lint"}], "counts":{"tasks","linted","with_findings","not_linted",
    //  "failed","by_class":{class: tasks}}}
    QJsonObject toJson() const;

private:
    QList<QPair<QString, ProblemLint>> m_entries;
};

} // namespace kiln
