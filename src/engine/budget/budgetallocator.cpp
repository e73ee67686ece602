#include "engine/budget/budgetallocator.h"

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

void BudgetAllocator::record(const QString &task, double spent, int attempts, int passes,
                             double reasoningTokens, double bestSpeedup)
{
    TaskState &s = m_tasks[task];
    s.spent += spent;
    s.attempts += attempts;
    s.passes += passes;
    s.reasoningTokens += reasoningTokens;
    if (bestSpeedup > s.bestSpeedup * (1.0 + 1e-9)) {
        s.bestSpeedup = bestSpeedup;
        s.roundsWithoutGain = 0;
    } else {
        ++s.roundsWithoutGain;
    }
    // Only worth it when another task can use the remainder.
    int othersActive = 0;
    for (auto it = m_tasks.cbegin(); it != m_tasks.cend(); ++it)
        othersActive += (it.key() != task && !it->done) ? 1 : 0;
    if (m_mode == Mode::Adaptive && othersActive > 0 && !probing() && s.attempts > 0) {
        const double passRate = double(s.passes) / s.attempts;
        if (passRate >= 0.8 && s.roundsWithoutGain >= easyPlateau)
            s.done = true; // easy and saturated: its remainder goes to the hard tasks
    }
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

QString BudgetAllocator::nextTask() const
{
    QString best;
    double bestRatio = std::numeric_limits<double>::max();
    for (const QString &task : m_order) {
        const TaskState &s = m_tasks[task];
        const double t = target(task);
        if (s.done || t <= 0.0 || s.spent >= t)
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
