#include "verdictstyle.h"

#include <algorithm>

namespace kiln {

QColor VerdictStyle::color(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Pass:
        return QColor(0x2e, 0x9d, 0x57);
    case Verdict::Wrong:
        return QColor(0xe6, 0x7e, 0x22);
    case Verdict::Flagged:
        return QColor(0x9b, 0x3f, 0xc1);
    case Verdict::CompileError:
        return QColor(0xd6, 0x45, 0x41);
    case Verdict::Crash:
        return QColor(0x7b, 0x24, 0x1c);
    case Verdict::Timeout:
        return QColor(0x3b, 0x76, 0xb8);
    case Verdict::Resource:
        return QColor(0x6c, 0x7a, 0x89);
    case Verdict::VerifierError:
        return QColor(0xa0, 0x8c, 0x5b);
    }
    return pendingColor();
}

QColor VerdictStyle::pendingColor()
{
    return QColor(0xb8, 0xbe, 0xc6);
}

QColor VerdictStyle::color(const CandidateSummary &candidate)
{
    return candidate.evaluated ? color(candidate.verdict) : pendingColor();
}

QString VerdictStyle::label(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Pass:
        return QStringLiteral("pass");
    case Verdict::Wrong:
        return QStringLiteral("wrong");
    case Verdict::Flagged:
        return QStringLiteral("flagged");
    case Verdict::CompileError:
        return QStringLiteral("compile error");
    case Verdict::Crash:
        return QStringLiteral("crash");
    case Verdict::Timeout:
        return QStringLiteral("timeout");
    case Verdict::Resource:
        return QStringLiteral("resource limit");
    case Verdict::VerifierError:
        return QStringLiteral("verifier error");
    }
    return QString();
}

QString VerdictStyle::label(const CandidateSummary &candidate)
{
    if (candidate.placeholder)
        return QStringLiteral("not in this run");
    return candidate.evaluated ? label(candidate.verdict) : QStringLiteral("pending");
}

QColor VerdictStyle::flagTierColor(const QString &tier)
{
    if (tier == QLatin1String("hard"))
        return color(Verdict::Flagged);
    if (tier == QLatin1String("suspicious"))
        return QColor(0xe6, 0x9b, 0x00);
    return QColor(0x8a, 0x94, 0xa3); // telemetry: advice
}

QColor VerdictStyle::islandColor(int island)
{
    // Tableau-like categorical colours, distinct from the verdict greens and reds.
    static const QColor colors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                    QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                                    QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
                                    QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac)};
    const int n = int(sizeof(colors) / sizeof(colors[0]));
    return colors[((island % n) + n) % n];
}

QColor VerdictStyle::bestPathColor()
{
    return QColor(0xf0, 0xb4, 0x29);
}

QColor VerdictStyle::selectionColor()
{
    return QColor(0x1f, 0x6f, 0xeb);
}

QColor VerdictStyle::compareColor()
{
    return QColor(0xe0, 0x3e, 0x9a);
}

QColor VerdictStyle::highlightColor()
{
    return QColor(0xf5, 0x9e, 0x0b);
}

QColor VerdictStyle::ratingColor(int rating)
{
    static const QColor colors[] = {QColor(0x2e, 0xa0, 0x43), QColor(0x8a, 0xb8, 0x3a),
                                    QColor(0xd4, 0xa7, 0x2c), QColor(0xe0, 0x70, 0x2a),
                                    QColor(0xcf, 0x22, 0x2e)};
    return colors[std::clamp(rating, 1, 5) - 1];
}

} // namespace kiln
