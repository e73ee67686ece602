#include "engine/budget/budgetallocator.h"

#include "engine/diagnosis/ceilinganalyzer.h"
#include "engine/diagnosis/stagnationanalyzer.h"

#include <algorithm>
#include <limits>

namespace kiln {

BudgetAllocator::BudgetAllocator(const QStringList &tasks, double budget, Mode mode)
    : m_order(tasks), m_budget(budget), m_mode(mode)
{
    for (const QString &task : tasks)
        m_tasks.insert(task, TaskState{});
    // A fifth of an even share is enough to see which tasks are hard without starving any.
    m_probeShare = tasks.isEmpty() ? 0.0 : std::max(1.0, 0.2 * budget / tasks.size());
}

std::optional<BudgetAllocator::Mode> BudgetAllocator::modeFromName(const QString &name)
{
    if (name == QLatin1String("even"))
        return Mode::Even;
    if (name == QLatin1String("adaptive"))
        return Mode::Adaptive;
    if (name == QLatin1String("diagnosed"))
        return Mode::Diagnosed;
    return std::nullopt;
}

void BudgetAllocator::record(const QString &task, double spent, int attempts, int passes,
                             double reasoningTokens, double bestSpeedup,
                             double bestRooflineFraction)
{
    TaskState &s = m_tasks[task];
    s.spent += spent;
    s.attempts += attempts;
    s.passes += passes;
    s.reasoningTokens += reasoningTokens;
    if (bestSpeedup > s.bestSpeedup * (1.0 + 1e-9)) {
        s.bestSpeedup = bestSpeedup;
        s.rooflineFraction = bestRooflineFraction;
        s.roundsWithoutGain = 0;
        s.attemptsSinceGain = 0;
    } else {
        ++s.roundsWithoutGain;
        s.attemptsSinceGain += attempts;
    }
    // Only worth it when another task can use the remainder.
    int othersActive = 0;
    for (auto it = m_tasks.cbegin(); it != m_tasks.cend(); ++it)
        othersActive += (it.key() != task && !it->done) ? 1 : 0;
    if (m_mode != Mode::Even && othersActive > 0 && !probing() && s.attempts > 0 && saturated(s))
        s.done = true; // its remainder goes to the tasks that can still gain
}

// Easy and saturated (passes 80 % and no gain for easyPlateau rounds); in diagnosed mode also a
// best at the ceiling, where the roofline leaves little to find.
bool BudgetAllocator::saturated(const TaskState &s) const
{
    const double passRate = double(s.passes) / s.attempts;
    if (passRate >= 0.8 && s.roundsWithoutGain >= easyPlateau)
        return true;
    return m_mode == Mode::Diagnosed && s.rooflineFraction >= CeilingAnalyzer::kThresholds[3];
}

// (0.1 + failure rate) x the ConCuR tier of the mean reasoning length (1, 1.5, 2) x a stagnation
// factor: 1 up to StagnationAnalyzer's rating 2 (share 0.35), falling linearly to 0.25 at its
// rating 5 (share 0.7), the share being the task's evaluations since its best rose over all of
// its evaluations (0 while nothing of it passed).
double BudgetAllocator::diagnosedWeight(const TaskState &s) const
{
    const double failRate = s.attempts ? 1.0 - double(s.passes) / s.attempts : 1.0;
    const double reasoning = s.attempts ? s.reasoningTokens / s.attempts : 0.0;
    const double tier = reasoning > kHardTokens ? 2.0 : reasoning >= kMediumTokens ? 1.5 : 1.0;
    // A task that never passed has no best to stall on: its failure rate speaks for it.
    const double share =
        s.attempts && s.bestSpeedup > 0.0 ? double(s.attemptsSinceGain) / s.attempts : 0.0;
    const double from = StagnationAnalyzer::kThresholds[1], to = StagnationAnalyzer::kThresholds[3];
    const double stalled = std::clamp((share - from) / (to - from), 0.0, 1.0);
    return (0.1 + failRate) * tier * (1.0 - 0.75 * stalled);
}

bool BudgetAllocator::probing() const
{
    for (const TaskState &s : m_tasks) {
        if (!s.done && s.spent < m_probeShare)
            return true;
    }
    return false;
}

double BudgetAllocator::difficulty(const QString &task) const
{
    double maxReasoning = 0.0;
    for (const TaskState &s : m_tasks)
        maxReasoning = std::max(maxReasoning, s.attempts ? s.reasoningTokens / s.attempts : 0.0);
    const TaskState s = m_tasks.value(task);
    if (m_mode == Mode::Diagnosed)
        return diagnosedWeight(s);
    const double failRate = s.attempts ? 1.0 - double(s.passes) / s.attempts : 1.0;
    const double reasoning =
        maxReasoning > 0 && s.attempts ? (s.reasoningTokens / s.attempts) / maxReasoning : 0.0;
    return 0.1 + failRate + 0.5 * reasoning;
}

double BudgetAllocator::target(const QString &task) const
{
    if (m_mode == Mode::Even || m_tasks.size() <= 1)
        return m_budget / std::max<qsizetype>(1, m_tasks.size());
    if (probing())
        return m_probeShare;
    // What is left after every task's spending so far, shared by difficulty among active tasks.
    double spentAll = 0.0;
    double weightActive = 0.0;
    for (auto it = m_tasks.cbegin(); it != m_tasks.cend(); ++it) {
        spentAll += it->spent;
        if (!it->done)
            weightActive += difficulty(it.key());
    }
    const TaskState s = m_tasks.value(task);
    if (s.done || weightActive <= 0.0)
        return s.spent;
    const double remaining = std::max(0.0, m_budget - spentAll);
    return s.spent + remaining * difficulty(task) / weightActive;
}

double BudgetAllocator::allowance(const QString &task) const
{
    if (isDone(task))
        return 0.0;
    return std::max(0.0, target(task) - m_tasks.value(task).spent);
}

bool BudgetAllocator::isDone(const QString &task) const
{
    return m_tasks.value(task).done;
}

QString BudgetAllocator::nextTask(const QSet<QString> &busy) const
{
    QString best;
    double bestRatio = std::numeric_limits<double>::max();
    for (const QString &task : m_order) {
        const TaskState &s = m_tasks[task];
        const double t = target(task);
        if (s.done || t <= 0.0 || s.spent >= t || busy.contains(task))
            continue;
        const double ratio = s.spent / t;
        if (ratio < bestRatio) {
            bestRatio = ratio;
            best = task;
        }
    }
    return best;
}

} // namespace kiln
