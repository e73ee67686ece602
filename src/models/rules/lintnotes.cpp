#include "models/rules/lintnotes.h"

#include <QObject>

namespace kiln {

QStringList LintNotes::lines(const QStringList &tasks, const QHash<QString, ProblemLint> &lints)
{
    QStringList lines;
    QStringList notLinted;
    for (const QString &task : tasks) {
        const auto it = lints.constFind(task);
        if (it == lints.cend() || it->state == ProblemLint::State::NotLinted) {
            notLinted << task;
            continue;
        }
        if (it->state == ProblemLint::State::Failed) {
            lines << QObject::tr("%1: problem lint failed: %2").arg(task, it->note);
            continue;
        }
        for (const LintFinding &finding : it->findings)
            lines << QObject::tr("%1: %2").arg(task, finding.text());
        if (it->effectiveAbs)
            lines << QObject::tr("%1: judged with %2").arg(task, it->toleranceText());
    }
    if (lines.size() > kMaxLines) {
        const qsizetype more = lines.size() - kMaxLines;
        lines = lines.mid(0, kMaxLines);
        lines << QObject::tr("... and %1 more (kiln-cli tasks lists them)").arg(more);
    }
    if (notLinted.size() == 1)
        lines
            << QObject::tr("%1 is not linted yet (kiln-cli lint-tasks %1)").arg(notLinted.first());
    else if (!notLinted.isEmpty())
        lines << QObject::tr("%1 of the chosen tasks are not linted yet (kiln-cli lint-tasks)")
                     .arg(notLinted.size());
    return lines;
}

} // namespace kiln
