#include "engine/diagnosis/explorationcollapseanalyzer.h"

#include <QMap>
#include <QSet>

namespace kiln {

namespace {

constexpr double kNearDuplicate = 0.98; // Jaccard of token trigrams
constexpr int kMinimumWindow = 8;

// The source's token trigrams, hashed: identifiers, numbers and single punctuation marks, so
// a new comment (// or /* */) or new whitespace changes nothing and a changed tile size does.
QSet<size_t> trigrams(const QString &source)
{
    QList<QStringView> tokens;
    const QStringView text(source);
    qsizetype i = 0;
    while (i < text.size()) {
        const QChar c = text[i];
        if (c.isSpace()) {
            ++i;
        } else if (c == QLatin1Char('/') && i + 1 < text.size() &&
                   text[i + 1] == QLatin1Char('/')) {
            while (i < text.size() && text[i] != QLatin1Char('\n'))
                ++i; // a comment says nothing about the kernel
        } else if (c == QLatin1Char('/') && i + 1 < text.size() &&
                   text[i + 1] == QLatin1Char('*')) {
            const qsizetype end = text.indexOf(u"*/", i + 2);
            i = end < 0 ? text.size() : end + 2;
        } else if (c.isLetterOrNumber() || c == QLatin1Char('_')) {
            const qsizetype start = i;
            while (i < text.size() && (text[i].isLetterOrNumber() || text[i] == QLatin1Char('_')))
                ++i;
            tokens.append(text.mid(start, i - start));
        } else {
            tokens.append(text.mid(i++, 1));
        }
    }
    QSet<size_t> grams;
    for (qsizetype t = 0; t + 2 < tokens.size(); ++t)
        grams.insert(qHashMulti(0, tokens[t], tokens[t + 1], tokens[t + 2]));
    return grams;
}

double jaccard(const QSet<size_t> &a, const QSet<size_t> &b)
{
    const QSet<size_t> &small = a.size() < b.size() ? a : b;
    const QSet<size_t> &large = a.size() < b.size() ? b : a;
    qsizetype shared = 0;
    for (size_t gram : small)
        shared += large.contains(gram);
    return double(shared) / double(a.size() + b.size() - shared);
}

} // namespace

// Among the recent candidates, the share that repeat an earlier one of the window: the same
// source (a judged duplicate) or nearly the same (token trigrams, Jaccard >= 0.98).
DiagnosisFinding ExplorationCollapseAnalyzer::analyze(const RunHistory &history) const
{
    DiagnosisFinding f{QStringLiteral("exploration_collapse"),
                       QStringLiteral("Exploration collapse")};
    const int n = history.evaluatedCount();
    const int window = std::min(n, RunHistory::kRecentSources);
    if (window < kMinimumWindow) {
        f.finding = QStringLiteral("Too few candidates to judge (%1).").arg(n);
        return f;
    }
    QList<QSet<size_t>> seen;
    QMap<int, int> operations; // by Operation, ordered: a tie names the same one every time
    for (int i = n - window; i < n; ++i) {
        const CandidateSummary &c = history.evaluated(i);
        ++operations[int(c.operation)];
        bool repeat = c.duplicateOf.has_value();
        const auto source = history.sources.constFind(c.id);
        QSet<size_t> grams = source != history.sources.cend() ? trigrams(*source) : QSet<size_t>();
        if (!grams.isEmpty()) { // an empty source (a failed generation) repeats nothing
            for (qsizetype s = 0; s < seen.size() && !repeat; ++s)
                repeat = jaccard(grams, seen[s]) >= kNearDuplicate;
            seen.append(std::move(grams));
        }
        if (repeat)
            f.candidates.append(c.id);
    }
    const double share = double(f.candidates.size()) / window;
    int common = 0;
    Operation mostCommon = Operation::Sample;
    for (auto it = operations.cbegin(); it != operations.cend(); ++it)
        if (it.value() > common)
            common = it.value(), mostCommon = Operation(it.key());
    f.rating = DiagnosisFinding::rate(share, {0.1, 0.25, 0.4, 0.6});
    f.finding = QStringLiteral("%1 of the last %2 candidates repeat an earlier one of them "
                               "(%3%); %4% of them were %5.")
                    .arg(f.candidates.size())
                    .arg(window)
                    .arg(100.0 * share, 0, 'f', 0)
                    .arg(100.0 * common / window, 0, 'f', 0)
                    .arg(operationName(mostCommon));
    f.rounds = history.roundsOf(f.candidates);
    f.figures.insert(QStringLiteral("window"), window);
    f.figures.insert(QStringLiteral("repeat_share"), share);
    f.figures.insert(QStringLiteral("most_common_operation"), operationName(mostCommon));
    f.figures.insert(QStringLiteral("most_common_operation_share"), double(common) / window);
    return f;
}

} // namespace kiln
