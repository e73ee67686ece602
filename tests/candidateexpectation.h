#pragma once

// Test candidates under tests/data/candidates carry what the verifier must conclude in their
// first line:  // expect: task=NAME verdict=VERDICT [flag=ID]
// Shared by the CPU and CUDA verifier tests and the CUDA compile test.

#include "core/evaluationresult.h"

#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace kiln::testing {

struct Expectation
{
    QString path;
    QString task;
    QString verdict;
    QString flag; // empty when the verdict alone is expected
};

inline QString readFile(const QString &path)
{
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return QString::fromUtf8(file.readAll());
}

inline Expectation readExpectation(const QString &path)
{
    const QString first = readFile(path).section(QLatin1Char('\n'), 0, 0);
    static const QRegularExpression pattern(
        QStringLiteral("task=(\\w+) verdict=(\\w+)(?: flag=(\\w+))?"));
    const QRegularExpressionMatch match = pattern.match(first);
    return {path, match.captured(1), match.captured(2), match.captured(3)};
}

// "id" per flag, "id!" when it blocks: what a failure message shows.
inline QStringList flagIds(const EvaluationResult &result)
{
    QStringList ids;
    for (const CheatFlag &flag : result.flags)
        ids << flag.id + (flag.blocking ? QStringLiteral("!") : QString());
    return ids;
}

} // namespace kiln::testing
