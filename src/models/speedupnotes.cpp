#include "speedupnotes.h"

#include "verifier/harness/verifieroptions.h"

#include <QStringList>
#include <algorithm>

namespace kiln {

namespace {

QString times(double value)
{
    return QStringLiteral("%1×").arg(value, 0, 'f', 2);
}

} // namespace

QString SpeedupNotes::speedupText(const std::optional<double> &speedup,
                                  const std::optional<SpeedupInterval> &interval)
{
    if (!speedup)
        return QString();
    if (!interval)
        return times(*speedup);
    return QStringLiteral("%1 ± %2").arg(times(*speedup)).arg(interval->plusMinus(), 0, 'f', 2);
}

QString SpeedupNotes::speedupText(const CandidateSummary &candidate)
{
    return speedupText(candidate.speedup, candidate.speedupInterval());
}

QString SpeedupNotes::cellText(const CandidateSummary &candidate)
{
    const QString text = speedupText(candidate);
    return candidate.confirmed && !text.isEmpty() ? text + QStringLiteral(" ✓") : text;
}

QString SpeedupNotes::judgementText(const CandidateSummary &candidate)
{
    const QString text = speedupText(candidate);
    return candidate.confirmed && !text.isEmpty() ? text + QStringLiteral(", confirmed") : text;
}

QString SpeedupNotes::intervalText(const SpeedupInterval &interval)
{
    return QStringLiteral("%1 % interval %2–%3 (paired bootstrap of the timed calls)")
        .arg(qRound(SpeedupInterval::kLevel * 100))
        .arg(times(interval.low), times(interval.high));
}

QString SpeedupNotes::confirmedText()
{
    return QStringLiteral("confirmed: re-measured with %1× the trials against a fresh baseline")
        .arg(VerifierOptions::kConfirmationScale);
}

QString SpeedupNotes::duplicateMark(qint64 original)
{
    return QStringLiteral("= #%1").arg(original);
}

QString SpeedupNotes::duplicateNote(qint64 original)
{
    return QStringLiteral("duplicate of #%1 (judgement reused)").arg(original);
}

QString SpeedupNotes::duplicateExplanation(qint64 original, bool reused)
{
    return reused ? QStringLiteral("same source as #%1 (whitespace and comments aside): its "
                                   "judgement is reused, not measured again")
                        .arg(original)
                  : QStringLiteral("same source as #%1 (whitespace and comments aside), "
                                   "measured again")
                        .arg(original);
}

SpeedupNotes::Difference SpeedupNotes::difference(const CandidateSummary &candidate,
                                                  const CandidateSummary &parent)
{
    const std::optional<SpeedupInterval> mine = candidate.speedupInterval();
    const std::optional<SpeedupInterval> theirs = parent.speedupInterval();
    if (!mine || !theirs)
        return Difference::Unknown;
    if (SpeedupInterval::clearlyFaster(*mine, *theirs))
        return Difference::Gain;
    if (SpeedupInterval::clearlyFaster(*theirs, *mine))
        return Difference::Loss;
    return Difference::WithinNoise;
}

QString SpeedupNotes::differenceText(const CandidateSummary &candidate,
                                     const CandidateSummary &parent)
{
    if (!parent.speedup || !candidate.speedup)
        return QString();
    const QString theirs =
        QStringLiteral("parent #%1 (%2)").arg(parent.id).arg(speedupText(parent));
    switch (difference(candidate, parent)) {
    case Difference::WithinNoise:
        return QStringLiteral("within noise of %1: the intervals overlap").arg(theirs);
    case Difference::Gain:
        return QStringLiteral("a real gain over %1: the intervals do not overlap").arg(theirs);
    case Difference::Loss:
        return QStringLiteral("a real loss against %1: the intervals do not overlap").arg(theirs);
    case Difference::Unknown:
        break;
    }
    return QStringLiteral("%1: no interval to tell a real difference from noise").arg(theirs);
}

QString SpeedupNotes::tooltip(const CandidateSummary &candidate,
                              const QList<const CandidateSummary *> &parents)
{
    if (!candidate.speedup)
        return QString();
    QStringList lines{speedupText(candidate)};
    if (const std::optional<SpeedupInterval> interval = candidate.speedupInterval())
        lines << intervalText(*interval);
    if (candidate.confirmed)
        lines << confirmedText();
    if (candidate.duplicateOf)
        lines << duplicateExplanation(*candidate.duplicateOf);
    for (const CandidateSummary *parent : parents) {
        const QString note = parent ? differenceText(candidate, *parent) : QString();
        if (!note.isEmpty())
            lines << note;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace kiln
