#include "cli/lintreport.h"

#include <QJsonArray>
#include <QMap>

namespace kiln {

namespace {

struct Counts
{
    int linted = 0;
    int withFindings = 0;
    int notLinted = 0;
    int failed = 0;
    QMap<QString, int> byClass; // tasks with at least one finding of the class
};

Counts countOf(const QList<QPair<QString, ProblemLint>> &entries)
{
    Counts counts;
    for (const auto &[task, lint] : entries) {
        if (lint.state == ProblemLint::State::NotLinted) {
            ++counts.notLinted;
            continue;
        }
        if (lint.state == ProblemLint::State::Failed) {
            ++counts.failed;
            continue;
        }
        ++counts.linted;
        counts.withFindings += lint.findings.isEmpty() ? 0 : 1;
        QStringList seen;
        for (const LintFinding &finding : lint.findings)
            if (!seen.contains(finding.id))
                seen << finding.id;
        for (const QString &id : seen)
            ++counts.byClass[id];
    }
    return counts;
}

} // namespace

void LintReport::add(const QString &task, const ProblemLint &lint)
{
    m_entries.append({task, lint});
}

QStringList LintReport::taskLines(const QString &task, const ProblemLint &lint)
{
    QStringList lines;
    if (lint.state == ProblemLint::State::NotLinted)
        return lines;
    if (lint.state == ProblemLint::State::Failed)
        return {task + QStringLiteral(": lint failed: ") + lint.note};
    for (const LintFinding &finding : lint.findings)
        lines << task + QStringLiteral(": ") + finding.text();
    if (lint.effectiveAbs)
        lines << task + QStringLiteral(": tolerance ") + lint.toleranceText();
    return lines;
}

QStringList LintReport::notLintedLines() const
{
    QMap<QString, QStringList> byNote;
    for (const auto &[task, lint] : m_entries)
        if (lint.state == ProblemLint::State::NotLinted)
            byNote[lint.note] << task;
    QStringList lines;
    for (auto it = byNote.constBegin(); it != byNote.constEnd(); ++it)
        lines << (it.value().size() == 1
                      ? it.value().first() + QStringLiteral(": not linted: ") + it.key()
                      : QStringLiteral("%1 tasks not linted: %2")
                            .arg(it.value().size())
                            .arg(it.key()));
    return lines;
}

QString LintReport::summary() const
{
    const Counts counts = countOf(m_entries);
    QStringList classes;
    for (const QString &id : LintFinding::kinds())
        classes << QStringLiteral("%1 %2").arg(id).arg(counts.byClass.value(id));
    return QStringLiteral("%1 task(s): %2 linted, %3 with findings, %4 not linted, %5 failed. "
                          "Tasks per finding class: %6")
        .arg(m_entries.size())
        .arg(counts.linted)
        .arg(counts.withFindings)
        .arg(counts.notLinted)
        .arg(counts.failed)
        .arg(classes.join(QStringLiteral(", ")));
}

QJsonObject LintReport::toJson() const
{
    const Counts counts = countOf(m_entries);
    QJsonArray tasks;
    for (const auto &[task, lint] : m_entries)
        tasks.append(
            QJsonObject{{QStringLiteral("task"), task}, {QStringLiteral("lint"), lint.toJson()}});
    QJsonObject byClass;
    for (const QString &id : LintFinding::kinds())
        byClass.insert(id, counts.byClass.value(id));
    return {{QStringLiteral("tasks"), tasks},
            {QStringLiteral("counts"),
             QJsonObject{{QStringLiteral("tasks"), int(m_entries.size())},
                         {QStringLiteral("linted"), counts.linted},
                         {QStringLiteral("with_findings"), counts.withFindings},
                         {QStringLiteral("not_linted"), counts.notLinted},
                         {QStringLiteral("failed"), counts.failed},
                         {QStringLiteral("by_class"), byClass}}}};
}

} // namespace kiln
