#pragma once

#include <QString>
#include <optional>

namespace kiln {

class RunDocument;

// Which candidate the window shows or compares, read off the shown run. A placeholder (a parent
// stored in another run) is never picked where its source would be needed.
class CandidatePicks
{
public:
    // A stored candidate of the shown run (not a placeholder).
    static bool isSelectable(const RunDocument &document, qint64 candidateId);
    // Why `--select candidateId` cannot be followed in run runId; empty when it can.
    static QString selectRefusal(const RunDocument &document, qint64 candidateId, qint64 runId);
    // After a load: `wanted` when selectable, else the best, else the last row; 0: none.
    static qint64 afterLoad(const RunDocument &document, qint64 wanted);
    // The left side of the diff: the one picked to compare with, else the current one's parent
    // unless that is a placeholder; 0: nothing to compare with.
    static qint64 diffBase(const RunDocument &document, qint64 current, qint64 compare);
    static std::optional<qint64> parentOf(const RunDocument &document, qint64 candidateId);
};

} // namespace kiln
