#include "engine/diagnosis/runhistory.h"

#include "store/runstore.h"

#include <algorithm>

namespace kiln {

RunHistory::RunHistory(QList<CandidateSummary> candidates) : m_candidates(std::move(candidates))
{
    for (qsizetype i = 0; i < m_candidates.size(); ++i) {
        const CandidateSummary &c = m_candidates[i];
        m_indexById.insert(c.id, i);
        if (!c.evaluated || c.placeholder)
            continue;
        m_evaluated.append(i);
        if (!m_tasks.contains(c.task))
            m_tasks.append(c.task);
    }
    QHash<QString, double> best;
    double sum = double(m_tasks.size()); // every task at the reference's 1x
    for (int position = 0; position < evaluatedCount(); ++position) {
        const CandidateSummary &c = evaluated(position);
        // A duplicate carries its original's judgement: it cannot raise the best again.
        const double before = best.value(c.task);
        if (c.isBestCandidate() && !c.duplicateOf && *c.speedup > before) {
            m_improvements.append({position, c.id, c.task, *c.speedup});
            m_bestPosition.insert(c.task, position);
            sum += std::max(1.0, *c.speedup) - std::max(1.0, before);
            best.insert(c.task, *c.speedup);
        }
        m_valueAfter.append(sum / m_tasks.size());
    }
}

const CandidateSummary *RunHistory::best(const QString &task) const
{
    const auto it = m_bestPosition.constFind(task);
    return it == m_bestPosition.cend() ? nullptr : &evaluated(*it);
}

double RunHistory::valueAt(int position) const
{
    if (position <= 0 || m_valueAfter.isEmpty())
        return 1.0;
    return m_valueAfter.value(std::min<qsizetype>(position, m_valueAfter.size()) - 1);
}

QList<int> RunHistory::roundsOf(const QList<qint64> &ids) const
{
    QList<int> rounds;
    for (qint64 id : ids) {
        const auto it = m_indexById.constFind(id);
        if (it != m_indexById.cend() && m_candidates[*it].round >= 0)
            rounds.append(m_candidates[*it].round);
    }
    std::sort(rounds.begin(), rounds.end());
    rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
    return rounds;
}

QString RunHistory::onTask(const QString &task) const
{
    return isSuite() ? QStringLiteral(" on ") + task : QString();
}

RunHistory RunHistory::load(RunStore &store, qint64 runId)
{
    RunHistory history(store.lineage(runId));
    if (const std::optional<RunRecord> run = store.run(runId)) {
        history.budget = run->config.value(QStringLiteral("budget")).toDouble();
        history.budgetAxis = run->config.value(QStringLiteral("budget_axis")).toString();
    }
    const QHash<qint64, CandidatePlotFacts> facts = store.plotFacts(runId);
    for (auto it = facts.cbegin(); it != facts.cend(); ++it)
        if (it->cost > 0.0)
            history.costs.insert(it.key(), it->cost);
    for (int i = std::max(0, history.evaluatedCount() - kRecentSources);
         i < history.evaluatedCount(); ++i)
        if (const std::optional<CandidateRecord> record = store.candidate(history.evaluated(i).id))
            history.sources.insert(record->id, record->source);
    for (const QString &task : history.tasks()) {
        const CandidateSummary *best = history.best(task);
        const std::optional<EvaluationResult> result =
            best ? store.evaluation(best->id) : std::nullopt;
        if (!result)
            continue;
        BestFacts &facts = history.bestFacts[task];
        facts.rooflineFraction = result->rooflineFraction;
        for (const StageResult &stage : result->stages)
            if (stage.data.contains(QStringLiteral("speedup_vs_library")))
                facts.librarySpeedup =
                    stage.data.value(QStringLiteral("speedup_vs_library")).toDouble();
    }
    return history;
}

} // namespace kiln
