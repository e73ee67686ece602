#include "engine/reports/fastpmetrics.h"

#include <QRegularExpression>
#include <algorithm>

namespace kiln {

namespace {

void keepMax(std::optional<double> &best, const std::optional<double> &value)
{
    if (value && (!best || *value > *best))
        best = value;
}

QJsonObject fractions(const QList<double> &values)
{
    QJsonObject object;
    const QList<double> &ps = FastPMetrics::thresholds();
    for (qsizetype i = 0; i < std::min(ps.size(), values.size()); ++i)
        object.insert(FastPMetrics::key(ps[i]), values[i]);
    return object;
}

} // namespace

const QList<double> &FastPMetrics::thresholds()
{
    static const QList<double> ps{0.0, 1.0, 1.5, 2.0};
    return ps;
}

QString FastPMetrics::key(double p)
{
    return QStringLiteral("fast_") + QString::number(p);
}

QList<FastPProblem> FastPMetrics::bestPerTask(const QMap<QString, int> &levels,
                                              const QList<FastPSample> &samples)
{
    QMap<QString, FastPProblem> byTask;
    for (auto it = levels.cbegin(); it != levels.cend(); ++it)
        byTask.insert(it.key(), FastPProblem{it.key(), it.value(), false, {}, {}});
    for (const FastPSample &s : samples) {
        const auto it = byTask.find(s.task);
        if (it == byTask.end() || s.verdict != Verdict::Pass)
            continue;
        it->correct = true;
        keepMax(it->speedup, s.speedup);
        keepMax(it->compiledSpeedup, s.compiledSpeedup);
    }
    QList<FastPProblem> problems = byTask.values();
    std::stable_sort(
        problems.begin(), problems.end(),
        [](const FastPProblem &a, const FastPProblem &b) { return a.level < b.level; });
    return problems;
}

bool FastPMetrics::isFast(const FastPProblem &problem, double p, bool compiled)
{
    if (!problem.correct)
        return false;
    if (p <= 0.0)
        return true; // fast_0 is correctness alone
    const std::optional<double> &speedup = compiled ? problem.compiledSpeedup : problem.speedup;
    return speedup && *speedup > p;
}

double FastPMetrics::fraction(const QList<FastPProblem> &problems, double p, bool compiled)
{
    if (problems.isEmpty())
        return 0.0;
    const auto fast = std::count_if(problems.cbegin(), problems.cend(),
                                    [&](const FastPProblem &x) { return isFast(x, p, compiled); });
    return double(fast) / double(problems.size());
}

QList<FastPLevel> FastPMetrics::byLevel(const QList<FastPProblem> &problems,
                                        const QList<double> &ps)
{
    QMap<int, QList<FastPProblem>> grouped;
    for (const FastPProblem &p : problems)
        grouped[p.level].append(p);
    QList<FastPLevel> rows;
    for (auto it = grouped.cbegin(); it != grouped.cend(); ++it) {
        FastPLevel row;
        row.level = it.key();
        row.problems = int(it->size());
        for (const FastPProblem &p : *it) {
            row.correct += p.correct ? 1 : 0;
            row.compiledMeasured += p.correct && p.compiledSpeedup ? 1 : 0;
        }
        for (double p : ps) {
            row.eager.append(fraction(*it, p, false));
            row.compiled.append(fraction(*it, p, true));
        }
        rows.append(row);
    }
    return rows;
}

QJsonObject FastPMetrics::toJson(const QList<FastPLevel> &levels)
{
    QJsonObject object;
    for (const FastPLevel &row : levels) {
        QJsonObject level = fractions(row.eager);
        level.insert(QStringLiteral("problems"), row.problems);
        level.insert(QStringLiteral("correct"), row.correct);
        QJsonObject compiled = fractions(row.compiled);
        compiled.insert(QStringLiteral("problems"), row.problems);
        compiled.insert(QStringLiteral("measured"), row.compiledMeasured);
        level.insert(QStringLiteral("compiled"), compiled);
        object.insert(QString::number(row.level), level);
    }
    return object;
}

std::optional<int> FastPMetrics::levelFromTaskName(const QString &task)
{
    // KernelBenchSource::taskName writes kb<level>_<NNN>_<slug>.
    static const QRegularExpression pattern(QStringLiteral("^kb([1-9][0-9]*)_[0-9]+_"));
    const QRegularExpressionMatch m = pattern.match(task);
    if (!m.hasMatch())
        return std::nullopt;
    return m.captured(1).toInt();
}

} // namespace kiln
