#pragma once

#include <QList>
#include <QString>

namespace kiln {

// What the simulated model can take from the feedback text of its prompt (the evaluation as
// FeedbackSummary writes it for any model): the source lines it points at (compiler
// diagnostics, flags) and whether it names a failing input (a mismatch or a crash on a shape).
// Nothing else about the parent is known to it.
class FeedbackReader
{
public:
    // Line numbers named in the text: "line 12", "[lines 3, 4]", "cand.cu(12): error",
    // "cand.cpp:12:5: error".
    static QList<int> pointedLines(const QString &feedback);
    // True when the text names the shape a call failed on ("on n=1", "on rows=7, cols=1000").
    static bool namesFailingShape(const QString &feedback);
    // Lines (1-based) of `source` that a clean rendering of the same variant does not have:
    // where the model, reading the code at a pointed line, sees something is off.
    static QList<int> deviatingLines(const QString &source, const QString &clean);
    // Whether any pointed line is within `slack` lines of a deviating one.
    static bool pointsAt(const QList<int> &pointed, const QList<int> &deviating, int slack = 2);
};

} // namespace kiln
