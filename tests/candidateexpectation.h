#pragma once

// Test candidates under tests/data/candidates carry what the verifier must conclude in their
// first line:  // expect: task=NAME verdict=VERDICT [flag=ID] [max_speedup=X]
// max_speedup bounds what a pass may measure: a cheat made useless passes, at an honest speed.
// Shared by the CPU and CUDA verifier tests and the CUDA compile test.

#include "core/evaluationresult.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace kiln::testing {

struct Expectation
{
    QString path;
    QString task;
    QString verdict;
    QString flag;            // empty when the verdict alone is expected
    double maxSpeedup = 0.0; // 0: no bound
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
        QStringLiteral("task=(\\w+) verdict=(\\w+)(?: flag=(\\w+))?(?: max_speedup=([0-9.]+))?"));
    const QRegularExpressionMatch match = pattern.match(first);
    return {path, match.captured(1), match.captured(2), match.captured(3),
            match.captured(4).toDouble()};
}

// "id" per flag, "id!" when it blocks: what a failure message shows.
inline QStringList flagIds(const EvaluationResult &result)
{
    QStringList ids;
    for (const CheatFlag &flag : result.flags)
        ids << flag.id + (flag.blocking ? QStringLiteral("!") : QString());
    return ids;
}

// The ids of the flags that block (a screen's or a result's).
inline QStringList blockingFlagIds(const QList<CheatFlag> &flags)
{
    QStringList ids;
    for (const CheatFlag &flag : flags)
        if (flag.blocking)
            ids << flag.id;
    return ids;
}

// One line for a failure message: the file, the verdict and summary it got, its flags, and what
// the blocking ones found (a flake on a shared machine is read from its evidence).
inline QString describeResult(const QString &path, const EvaluationResult &result)
{
    QStringList evidence;
    for (const CheatFlag &flag : result.flags)
        if (flag.blocking)
            evidence << flag.id + QStringLiteral(": ") + flag.message;
    return QStringLiteral("%1: got %2 (%3) flags [%4] %5")
        .arg(QFileInfo(path).fileName(), verdictName(result.verdict), result.summary,
             flagIds(result).join(QLatin1Char(' ')), evidence.join(QStringLiteral("; ")));
}

// What in an evaluation contradicts its candidate's expectation line; empty when nothing does.
// The verdict; the expected flag, blocking whenever it is the reason for "flagged"; a pass is
// correct, unblocked and timed; any other verdict has no speedup unless flagged; the stages run
// from the screen to the verdict, and there is a summary.
inline QString expectationMismatch(const Expectation &e, const EvaluationResult &result)
{
    if (verdictName(result.verdict) != e.verdict)
        return QStringLiteral("expected verdict %1").arg(e.verdict);
    if (!e.flag.isEmpty()) {
        bool found = false;
        for (const CheatFlag &flag : result.flags)
            found = found ||
                    (flag.id == e.flag && (flag.blocking || e.verdict != QLatin1String("flagged")));
        if (!found)
            return QStringLiteral("expected flag %1").arg(e.flag);
    }
    if (e.verdict == QLatin1String("pass")) {
        if (result.hasBlockingFlag())
            return QStringLiteral("a pass with a blocking flag");
        if (!result.correct)
            return QStringLiteral("a pass not marked correct");
        if (result.candidateTiming.n < 2 ||
            result.candidateTiming.min > result.candidateTiming.median)
            return QStringLiteral("a pass without a sound timing");
        if (e.maxSpeedup > 0 && result.speedup.value_or(0.0) > e.maxSpeedup)
            return QStringLiteral("a speedup of %1x, above the honest bound %2x")
                .arg(result.speedup.value_or(0.0), 0, 'f', 1)
                .arg(e.maxSpeedup);
    } else if (result.speedup.has_value() && e.verdict != QLatin1String("flagged")) {
        return QStringLiteral("a speedup on a %1 verdict").arg(e.verdict);
    }
    if (result.stages.isEmpty() || result.stages.first().name != QLatin1String("screen") ||
        result.stages.last().name != QLatin1String("verdict"))
        return QStringLiteral("stages do not run from screen to verdict");
    if (result.summary.isEmpty())
        return QStringLiteral("no summary");
    return {};
}

} // namespace kiln::testing
