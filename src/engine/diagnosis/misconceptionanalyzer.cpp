#include "engine/diagnosis/misconceptionanalyzer.h"

#include <QHash>

namespace kiln {

namespace {

constexpr int kMinimumFresh = 5;
constexpr int kMinimumGroup = 3;
constexpr int kEvidence = 50;

bool failed(const CandidateSummary &c)
{
    return c.verdict == Verdict::CompileError || c.verdict == Verdict::Wrong ||
           c.verdict == Verdict::Crash || c.verdict == Verdict::Timeout;
}

// The failure's kind and message with numbers and paths taken out: "compile_error: #:#: error:
// 'blockdim' was not declared" for every candidate that made the same mistake anywhere.
QString pattern(const CandidateSummary &c)
{
    QString text = c.verdictText() + QStringLiteral(": ");
    const QString summary = c.summary.left(160).toLower();
    for (const QString &word : summary.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        bool inNumber = false;
        const QString kept =
            word.contains(QLatin1Char('/')) ? word.section(QLatin1Char('/'), -1) : word;
        for (const QChar ch : kept) {
            if (ch.isDigit()) {
                if (!inNumber)
                    text += QLatin1Char('#');
                inNumber = true;
                continue;
            }
            inNumber = false;
            text += ch;
        }
        text += QLatin1Char(' ');
    }
    return text.trimmed();
}

} // namespace

// Among fresh samples (no parent, no feedback), the largest group that failed with the same
// message, as a share of all fresh samples: the pass@k plateau of a model that keeps making one
// mistake no amount of sampling fixes.
DiagnosisFinding MisconceptionAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("repeated_misconception"),
                       QStringLiteral("Repeated misconception")};
    QHash<QString, QList<qint64>> groups;
    QStringList order; // the patterns as they first appear: ties go to the earliest
    int fresh = 0;
    for (int i = 0; i < history.evaluatedCount(); ++i) {
        const CandidateSummary &c = history.evaluated(i);
        if (c.operation != Operation::Sample || c.duplicateOf)
            continue;
        ++fresh;
        if (!failed(c))
            continue;
        const QString key = pattern(c);
        if (!groups.contains(key))
            order.append(key);
        groups[key].append(c.id);
    }
    if (fresh < kMinimumFresh) {
        f.finding = QStringLiteral("Too few fresh samples to judge (%1).").arg(fresh);
        return f;
    }
    QString largest;
    for (const QString &key : order)
        if (largest.isNull() || groups.value(key).size() > groups.value(largest).size())
            largest = key;
    const QList<qint64> group = groups.value(largest);
    if (group.size() < kMinimumGroup) {
        f.finding = QStringLiteral("No failure repeats among %1 fresh samples.").arg(fresh);
        f.figures.insert(QStringLiteral("fresh_samples"), fresh);
        return f;
    }
    const double share = double(group.size()) / fresh;
    f.rating = DiagnosisFinding::rate(share, {0.1, 0.2, 0.35, 0.5});
    f.finding = QStringLiteral("%1 of %2 fresh samples (%3%) failed the same way: \"%4\".")
                    .arg(group.size())
                    .arg(fresh)
                    .arg(100.0 * share, 0, 'f', 0)
                    .arg(largest);
    f.candidates = group.mid(0, kEvidence);
    f.rounds = history.roundsOf(group);
    f.figures.insert(QStringLiteral("fresh_samples"), fresh);
    f.figures.insert(QStringLiteral("group"), int(group.size()));
    f.figures.insert(QStringLiteral("share"), share);
    f.figures.insert(QStringLiteral("pattern"), largest);
    return f;
}

} // namespace kiln
