#pragma once

#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// Splits one global budget (on the run's axis) over the tasks of a suite.
//  - even: every task gets budget / T.
//  - adaptive (compute-optimal): a probe share for every task first, then the rest in proportion
//    to a difficulty signal — the failure rate seen so far plus the normalised reasoning length —
//    while easy tasks (high pass rate and no gain for `easyPlateau` rounds) stop early and hand
//    their remainder back.
//  - diagnosed: adaptive's probe, then shares weighted by the run diagnosis' signals per task
//    (docs/diagnosis.md): the failure rate so far, the ConCuR tier of the task's reasoning length
//    (Easy < 4,000 tokens, Medium to 8,500, Hard above), and stagnation (evaluations since the
//    task's best rose, over its evaluations) that cuts a stalled task's weight; a task whose best
//    reaches the ceiling (roofline fraction 0.8) stops, as a saturated easy task does.
class BudgetAllocator
{
public:
    enum class Mode
    {
        Even,
        Adaptive,
        Diagnosed
    };
    static std::optional<Mode> modeFromName(const QString &name);

    BudgetAllocator(const QStringList &tasks, double budget, Mode mode);

    // Result of one round of a task, in the axis' units.
    // bestRooflineFraction: of the round's fastest passing candidate (0 when unknown).
    void record(const QString &task, double spent, int attempts, int passes, double reasoningTokens,
                double bestSpeedup, double bestRooflineFraction = 0.0);
    // The task whose turn it is (furthest below its share), or empty when all are done; `busy`:
    // tasks that have a round in flight, passed over.
    QString nextTask(const QSet<QString> &busy = {}) const;
    // How much of the axis this task may still spend under its current share.
    double allowance(const QString &task) const;
    void markDone(const QString &task) { m_tasks[task].done = true; }
    bool isDone(const QString &task) const;
    double target(const QString &task) const;
    double difficulty(const QString &task) const;
    double spent(const QString &task) const { return m_tasks.value(task).spent; }

private:
    struct TaskState
    {
        double spent = 0.0;
        int attempts = 0;
        int passes = 0;
        double reasoningTokens = 0.0;
        double bestSpeedup = 0.0;
        int roundsWithoutGain = 0;
        int attemptsSinceGain = 0;
        double rooflineFraction = 0.0; // of the best
        bool done = false;
    };
    bool probing() const;
    bool saturated(const TaskState &s) const; // may stop and hand its remainder back
    double diagnosedWeight(const TaskState &s) const;

    QMap<QString, TaskState> m_tasks;
    QStringList m_order;
    double m_budget;
    Mode m_mode;
    double m_probeShare;
    static constexpr int easyPlateau = 2;
    static constexpr double kMediumTokens = 4000.0; // ConCuR's reasoning-length tiers
    static constexpr double kHardTokens = 8500.0;
};

} // namespace kiln
