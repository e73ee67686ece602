#pragma once

#include "core/candidatesummary.h"

#include <QColor>
#include <QString>

namespace kiln {

// The one palette of the workbench: every view colours a verdict, an island and the best path
// the same way, so a colour learnt in the tree reads the same in the table and the legend.
class VerdictStyle
{
public:
    static QColor color(Verdict verdict);
    static QColor pendingColor();
    static QColor color(const CandidateSummary &candidate);
    static QString label(Verdict verdict); // "compile error", for people
    static QString label(const CandidateSummary &candidate);
    // A cheat flag's tier: hard in the flagged purple, suspicious amber, telemetry grey.
    static QColor flagTierColor(const QString &tier);
    static QColor islandColor(int island);
    static QColor bestPathColor();
    static QColor selectionColor();
    static QColor compareColor();
    static QColor highlightColor();        // a diagnosis finding's evidence
    static QColor ratingColor(int rating); // 1 (not seen, green) .. 5 (plain, red)
};

} // namespace kiln
