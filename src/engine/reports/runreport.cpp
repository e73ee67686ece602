#include "engine/reports/runreport.h"

#include "engine/duplicatejudgement.h"
#include "engine/reports/coveragemetrics.h"
#include "engine/runconfig.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <algorithm>

namespace kiln {

namespace {

struct RunTally
{
    QJsonObject best;
    QJsonObject verdicts;
    int candidates = 0;
    int duplicates = 0;
    int confirmations = 0;
};

// Whether a judgement may stand as a best: confirmed, or any passing one in a run that confirms
// nothing (confirm=off, or a run stored before confirmation existed). A reused judgement is its
// original's, which stands for itself.
bool countsForBest(const EvaluationResult &e, bool runConfirms)
{
    return e.verdict == Verdict::Pass && e.speedup && (e.confirmed || !runConfirms) &&
           !DuplicateJudgement::isReused(e);
}

bool anyConfirmed(const QMap<qint64, EvaluationResult> &evaluations)
{
    return std::any_of(evaluations.cbegin(), evaluations.cend(),
                       [](const EvaluationResult &e) { return e.confirmed; });
}

QJsonObject bestJson(const CandidateRecord &c, const EvaluationResult &e)
{
    QJsonObject best{{QStringLiteral("candidate_id"), double(c.id)},
                     {QStringLiteral("speedup"), *e.speedup},
                     {QStringLiteral("verdict"), verdictName(e.verdict)},
                     {QStringLiteral("task"), c.task},
                     {QStringLiteral("confirmed"), e.confirmed}};
    if (e.speedupInterval) {
        best.insert(QStringLiteral("speedup_low"), e.speedupInterval->low);
        best.insert(QStringLiteral("speedup_high"), e.speedupInterval->high);
    }
    return best;
}

RunTally tally(RunStore &store, qint64 runId)
{
    RunTally t;
    for (Verdict v : allVerdicts())
        t.verdicts.insert(verdictName(v), 0);
    const QList<CandidateRecord> candidates = store.candidates(runId);
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    const bool runConfirms = anyConfirmed(evaluations);
    t.candidates = int(candidates.size());
    double bestSpeedup = -1.0;
    for (const CandidateRecord &c : candidates) {
        const auto it = evaluations.constFind(c.id);
        if (it == evaluations.cend())
            continue;
        const QString name = verdictName(it->verdict);
        t.verdicts.insert(name, t.verdicts.value(name).toInt() + 1);
        t.duplicates += it->duplicateOf ? 1 : 0;
        t.confirmations += it->confirmed && !it->duplicateOf ? 1 : 0;
        if (countsForBest(*it, runConfirms) && *it->speedup > bestSpeedup) {
            bestSpeedup = *it->speedup;
            t.best = bestJson(c, *it);
        }
    }
    if (t.best.isEmpty()) {
        t.best = {{QStringLiteral("candidate_id"), QJsonValue::Null},
                  {QStringLiteral("speedup"), QJsonValue::Null},
                  {QStringLiteral("verdict"), QJsonValue::Null}};
    }
    return t;
}

} // namespace

QJsonArray RunReport::curve(RunStore &store, qint64 runId)
{
    const std::optional<RunRecord> run = store.run(runId);
    const QList<CandidateRecord> candidates = store.candidates(runId);
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    const bool runConfirms = anyConfirmed(evaluations);
    QJsonArray points;
    qint64 evals = 0, tokens = 0, samples = 0;
    double cost = 0.0, best = 0.0, bestLow = 0.0, bestHigh = 0.0;
    for (const CandidateRecord &c : candidates) {
        samples += 1;
        tokens += c.promptTokens + c.completionTokens + c.reasoningTokens;
        cost += c.policyMeta.value(QStringLiteral("cost")).toDouble();
        const auto it = evaluations.constFind(c.id);
        if (it != evaluations.cend()) {
            evals += 1;
            if (countsForBest(*it, runConfirms) && *it->speedup > best) {
                best = *it->speedup;
                bestLow = it->speedupInterval ? it->speedupInterval->low : best;
                bestHigh = it->speedupInterval ? it->speedupInterval->high : best;
            }
        }
        const double seconds =
            run && run->createdAt.isValid() ? run->createdAt.msecsTo(c.createdAt) / 1000.0 : 0.0;
        points.append(QJsonObject{{QStringLiteral("candidate_id"), double(c.id)},
                                  {QStringLiteral("evals"), double(evals)},
                                  {QStringLiteral("samples"), double(samples)},
                                  {QStringLiteral("tokens"), double(tokens)},
                                  {QStringLiteral("seconds"), std::max(0.0, seconds)},
                                  {QStringLiteral("cost"), cost},
                                  {QStringLiteral("best_speedup"), best},
                                  {QStringLiteral("best_low"), bestLow},
                                  {QStringLiteral("best_high"), bestHigh}});
    }
    return points;
}

QJsonObject RunReport::resultJson(RunStore &store, qint64 runId)
{
    const std::optional<RunRecord> run = store.run(runId);
    const RunTally t = tally(store, runId);
    return {{QStringLiteral("run_id"), double(runId)},
            {QStringLiteral("best"), t.best},
            {QStringLiteral("candidates"), t.candidates},
            {QStringLiteral("verdicts"), t.verdicts},
            {QStringLiteral("duplicates"), t.duplicates},
            {QStringLiteral("confirmations"), t.confirmations},
            {QStringLiteral("budget_used"), run ? run->budgetUsed.toJson() : QJsonObject()},
            {QStringLiteral("status"), run ? RunRecord::statusName(run->status) : QString()},
            {QStringLiteral("verifier"), run ? RunConfig::verifierOf(run->config) : QString()}};
}

QJsonObject RunReport::runJson(RunStore &store, qint64 runId)
{
    const std::optional<RunRecord> run = store.run(runId);
    if (!run)
        return {};
    const RunTally t = tally(store, runId);

    // Coverage over every evaluated sample of the run (unbiased estimator, k up to n).
    QList<bool> correct;
    QList<double> speedups;
    QList<double> reasoning;
    QList<double> passSpeedups;
    QList<double> passReasoning;
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    for (const CandidateRecord &c : store.candidates(runId)) {
        const auto it = evaluations.constFind(c.id);
        const bool ok = it != evaluations.cend() && it->verdict == Verdict::Pass;
        correct.append(ok);
        speedups.append(ok ? it->speedup.value_or(0.0) : 0.0);
        reasoning.append(double(c.reasoningTokens));
        if (ok) {
            passSpeedups.append(it->speedup.value_or(0.0));
            passReasoning.append(double(c.reasoningTokens));
        }
    }
    QJsonObject passAtK, fast1AtK;
    for (int k : {1, 5, 10, 20, 50, 100}) {
        if (k > correct.size())
            break;
        passAtK.insert(QString::number(k), CoverageMetrics::passAtK(correct, k));
        fast1AtK.insert(QString::number(k), CoverageMetrics::fastPAtK(correct, speedups, 1.0, k));
    }
    const QJsonObject metrics{{QStringLiteral("pass_at_k"), passAtK},
                              {QStringLiteral("fast_1_at_k"), fast1AtK},
                              {QStringLiteral("speedup_vs_reasoning_pearson_r"),
                               CoverageMetrics::pearson(passReasoning, passSpeedups)},
                              {QStringLiteral("correct_vs_reasoning_pearson_r"), [&] {
                                   QList<double> c;
                                   for (bool b : correct)
                                       c.append(b ? 1.0 : 0.0);
                                   return CoverageMetrics::pearson(reasoning, c);
                               }()}};

    QJsonObject report{
        {QStringLiteral("id"), double(runId)},
        {QStringLiteral("kind"), run->kind},
        {QStringLiteral("task"), run->tasks.join(QLatin1Char(','))},
        {QStringLiteral("tasks"), QJsonArray::fromStringList(run->tasks)},
        {QStringLiteral("strategy"), run->strategy},
        {QStringLiteral("policy"), run->policy},
        {QStringLiteral("backend"), run->backend},
        {QStringLiteral("seed"), QString::number(run->seed)},
        {QStringLiteral("status"), RunRecord::statusName(run->status)},
        // "lenient": judged by the naive harness; such a run's figures are not the truth.
        {QStringLiteral("verifier"), RunConfig::verifierOf(run->config)},
        {QStringLiteral("rejudged_from"), run->config.value(QStringLiteral("rejudged_from"))},
        {QStringLiteral("candidates"), t.candidates},
        {QStringLiteral("best"), t.best},
        {QStringLiteral("verdicts"), t.verdicts},
        {QStringLiteral("duplicates"), t.duplicates},
        {QStringLiteral("confirmations"), t.confirmations},
        {QStringLiteral("budget_used"), run->budgetUsed.toJson()},
        {QStringLiteral("metrics"), metrics},
        {QStringLiteral("curve"), curve(store, runId)}};
    // The kernel language a KernelBench run's candidates were written and judged in.
    if (run->backend == QLatin1String("pytorch"))
        report.insert(QStringLiteral("language"), RunConfig::languageOf(run->config));
    return report;
}

std::optional<SpeedupInterval> RunReport::bestInterval(const QJsonObject &best)
{
    if (!best.value(QStringLiteral("speedup")).isDouble() ||
        !best.value(QStringLiteral("speedup_low")).isDouble())
        return std::nullopt;
    return SpeedupInterval{best.value(QStringLiteral("speedup")).toDouble(),
                           best.value(QStringLiteral("speedup_low")).toDouble(),
                           best.value(QStringLiteral("speedup_high")).toDouble()};
}

QString RunReport::bestText(const QJsonObject &best)
{
    if (!best.value(QStringLiteral("speedup")).isDouble())
        return QStringLiteral("no correct candidate");
    const std::optional<SpeedupInterval> interval = bestInterval(best);
    const QString figure =
        interval ? interval->text()
                 : QStringLiteral("%1x").arg(best.value(QStringLiteral("speedup")).toDouble(), 0,
                                             'f', 2);
    return QStringLiteral("candidate %1 at %2, %3")
        .arg(qint64(best.value(QStringLiteral("candidate_id")).toDouble()))
        .arg(figure, best.value(QStringLiteral("confirmed")).toBool()
                         ? QStringLiteral("confirmed (re-measured with more trials)")
                         : QStringLiteral("not confirmed"));
}

} // namespace kiln
