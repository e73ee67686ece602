#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace kiln {

// One thing problem lint found wrong with a task itself (docs/tasks.md, "Problem lint"): its
// class, what it concerns (an output, an input, an op) and one line of evidence.
struct LintFinding
{
    QString id;      // one of kinds()
    QString subject; // "output 0", "input bias", "clamp (call 3)"; empty for the whole task
    QString detail;

    // Every class, in the order they are reported and counted.
    static QStringList kinds();
    // "zeros_pass output 0: ..." (one line of `kiln-cli tasks`).
    QString text() const;
    QJsonObject toJson() const;
    static LintFinding fromJson(const QJsonObject &object);
    bool operator==(const LintFinding &other) const = default;
};

} // namespace kiln
