#pragma once

#include "core/candidatesummary.h"
#include "core/speedupinterval.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// How sure a speedup is, in words every view shares: the table, the tree's tooltips, the report
// and the plots' legends say "2.31× ± 0.04", "confirmed", "within noise" and "= #9" alike.
class SpeedupNotes
{
public:
    // How a candidate's speedup compares with its parent's, judged on their 95 % intervals.
    enum class Difference
    {
        Unknown,     // either has no speedup, or no interval to judge the noise by
        WithinNoise, // the intervals overlap: neither is clearly faster
        Gain,
        Loss
    };

    // "2.31× ± 0.04" with an interval, "2.31×" without, empty when there is no speedup.
    static QString speedupText(const std::optional<double> &speedup,
                               const std::optional<SpeedupInterval> &interval);
    static QString speedupText(const CandidateSummary &candidate);
    // The table's cell: the speedup and a trailing "✓" once it is confirmed.
    static QString cellText(const CandidateSummary &candidate);
    // "2.31× ± 0.04, confirmed": the tree's tooltip and the report's headline.
    static QString judgementText(const CandidateSummary &candidate);
    // "95 % interval 2.27×–2.35× (paired bootstrap of the timed calls)".
    static QString intervalText(const SpeedupInterval &interval);
    // "confirmed: re-measured with 4× the trials against a fresh baseline".
    static QString confirmedText();
    // "= #9", the short mark of a duplicate.
    static QString duplicateMark(qint64 original);
    // "duplicate of #9 (judgement reused)".
    static QString duplicateNote(qint64 original);
    // Why a duplicate carries another's verdict; `reused` false for one measured again.
    static QString duplicateExplanation(qint64 original, bool reused = true);

    static Difference difference(const CandidateSummary &candidate, const CandidateSummary &parent);
    // "within noise of parent #3 (2.29× ± 0.05): the intervals overlap", or a real gain or loss;
    // empty when the parent has no speedup.
    static QString differenceText(const CandidateSummary &candidate,
                                  const CandidateSummary &parent);
    // The table's tooltip on the speedup: the interval, the confirmation, the duplicate and how
    // it compares with each parent given (those the document knows).
    static QString tooltip(const CandidateSummary &candidate,
                           const QList<const CandidateSummary *> &parents);
};

} // namespace kiln
